import Foundation

extension InsightsEvent {
    /// The event `Call.postFeedback(score:issue:)` publishes: `feedback`/`received-none` when both
    /// the score and the issue are not reported (empty payload), otherwise `feedback`/`received`
    /// with payload `score` (1…5, or `null` when not reported) and `issue` (the issue name, or
    /// `null` when not reported).
    public static func feedback(
        score: CallFeedbackScore, issue: CallFeedbackIssue, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        if score == .notReported && issue == .notReported {
            return InsightsEvent(
                group: .feedback, name: InsightsFeedbackEvent.receivedNone.rawValue, timestamp: timestamp,
                callSid: callSid, level: .info)
        }
        return InsightsEvent(
            group: .feedback, name: InsightsFeedbackEvent.received.rawValue, timestamp: timestamp,
            callSid: callSid, level: .info,
            payload: [
                "score": score == .notReported ? .null : .int(score.rawValue),
                "issue": issue == .notReported ? .null : .string(issue.rawValue),
            ])
    }
}
