import VoiceSupport

/// What a ``SIPRegistration`` asks its driver to do after an event.
package enum SIPRegistrationAction: Sendable, Equatable {
    /// Send this REGISTER through a new non-INVITE client transaction. Its final response goes
    /// back through ``SIPRegistration/receiveResponse(_:now:)``; a timeout or transport error
    /// through ``SIPRegistration/requestFailed(failure:now:)``.
    case sendRequest(SIPRequest)
    /// Start (or restart) a timer that fires `after` from now, reported back through
    /// ``SIPRegistration/timerFired(_:now:)``.
    case startTimer(SIPRegistrationTimer, after: MediaTime)
    /// Stop a timer if it is running.
    case cancelTimer(SIPRegistrationTimer)
    /// Report this to the layer above.
    case event(SIPRegistrationEvent)
}
