import VoiceSupport

/// Where a ``SIPRegistration`` stands.
package enum SIPRegistrationState: Hashable, Sendable {
    /// Created; nothing sent yet.
    case idle
    /// A REGISTER is in flight and no binding is known to exist (first attempt, a retry, or an
    /// authentication or 423 round of those).
    case registering
    /// The registrar granted the binding for `expires` seconds; the refresh timer is running.
    case registered(expires: UInt32)
    /// A refreshing REGISTER is in flight; the binding granted for `expires` seconds still holds.
    case refreshing(expires: UInt32)
    /// Unregistration was asked for: the REGISTER with `Expires: 0` is in flight, or will be
    /// sent as soon as the REGISTER already in flight completes.
    case unregistering
    /// Our binding was removed (or never existed).
    case unregistered
    /// A REGISTER failed; the retry timer is running and fires after `retryAfter`.
    case waitingToRetry(SIPFailure, retryAfter: MediaTime)
    /// A REGISTER failed in a way retrying cannot fix (rejected credentials, an unanswerable
    /// challenge) or an unregistration failed. Only ``SIPRegistration/register(now:)`` starts again.
    case failed(SIPFailure)
}
