import VoiceSupport

/// What a ``SIPRegistration`` reports to the layer above.
package enum SIPRegistrationEvent: Hashable, Sendable {
    /// A REGISTER (first or refresh) succeeded; the registrar granted the binding for
    /// `expires` seconds. Reported after every successful refresh too.
    case registered(expires: UInt32)
    /// Our binding is removed (the unregistering REGISTER succeeded), or there was none to remove.
    case unregistered
    /// A REGISTER failed. `willRetryAfter` is the delay, from the moment of the event, after
    /// which the registration tries again on its own; nil when it does not retry (rejected
    /// credentials, an unanswerable challenge, or a failed unregistration).
    case failed(SIPFailure, willRetryAfter: MediaTime?)
}
