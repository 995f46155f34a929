/// The quality score a user gives a call (Twilio's `TVOCallFeedbackScore`), 1 (worst) to 5 (best).
public enum CallFeedbackScore: Int, Hashable, Sendable, CaseIterable {
    /// No score given.
    case notReported = 0
    /// Terrible call quality.
    case onePoint = 1
    /// Bad call quality.
    case twoPoints = 2
    /// Average call quality.
    case threePoints = 3
    /// Good call quality.
    case fourPoints = 4
    /// Excellent call quality.
    case fivePoints = 5
}
