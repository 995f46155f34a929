/// The timers a ``CallStateMachine`` asks its driver to run.
///
/// The driver starts a timer on ``CallStateOutput/startTimer(_:deadline:)``, drops it on
/// ``CallStateOutput/cancelTimer(_:)``, and calls ``CallStateMachine/timerFired(_:now:)`` when it
/// expires. A late or stale firing is harmless: the machine acts only on a running timer whose
/// deadline has passed.
package enum CallStateTimer: Sendable, Hashable, CaseIterable {
    /// Bounds a media reconnection; on expiry the call ends with 53405.
    case mediaReconnect
    /// Bounds a signaling reconnection; on expiry the call ends with 53001.
    case signalingReconnect
    /// Bounds how long an outgoing call may go unanswered; on expiry it is cancelled with 31480.
    case ringTimeout
}

extension CallStateTimer? {
    /// Whether this is a reconnection's timer (media or signaling).
    package var isReconnection: Bool { self == .mediaReconnect || self == .signalingReconnect }
}
