/// The problem a user reports for a call (Twilio's `TVOCallFeedbackIssue`). The raw value is the
/// issue name sent to Insights.
public enum CallFeedbackIssue: String, Hashable, Sendable, CaseIterable {
    /// No issue given.
    case notReported = "not-reported"
    /// The call dropped.
    case droppedCall = "dropped-call"
    /// Noticeable delay.
    case audioLatency = "audio-latency"
    /// Only one side could hear the other.
    case oneWayAudio = "one-way-audio"
    /// Audio cut in and out.
    case choppyAudio = "choppy-audio"
    /// Background noise or static.
    case noisyCall = "noisy-call"
    /// Echo.
    case echo
}
