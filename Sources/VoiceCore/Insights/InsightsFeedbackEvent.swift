/// Event names of the `feedback` group.
package enum InsightsFeedbackEvent: String, Hashable, Sendable, CaseIterable {
    /// Feedback was posted with a score or an issue.
    case received
    /// Feedback was posted with neither a score nor an issue.
    case receivedNone = "received-none"
}
