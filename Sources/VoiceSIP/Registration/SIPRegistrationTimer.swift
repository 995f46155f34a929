/// The timers a ``SIPRegistration`` asks its driver to run.
package enum SIPRegistrationTimer: Hashable, Sendable {
    /// Time to refresh the binding before it expires.
    case refresh
    /// The back-off after a failure is over: try to register again.
    case retry
}
