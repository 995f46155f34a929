import VoiceSupport

/// What an ``SIPInviteSession`` asks its driver to do, in order.
package enum SIPInviteSessionAction: Sendable, Equatable {
    /// Start a client transaction for this request (INVITE, CANCEL, BYE, re-INVITE, INFO).
    case sendRequest(SIPRequest)
    /// Send the ACK to a 2xx straight to the transport, outside any transaction.
    case sendACK(SIPRequest)
    /// Send this response through the server transaction found from its top Via branch and
    /// CSeq method; 2xx retransmissions to an INVITE go straight to the transport.
    case sendResponse(SIPResponse)
    /// Start (or restart) `timer`, firing `after` from now; call ``SIPInviteSession/timerFired(_:now:)``.
    case startTimer(SIPInviteSessionTimer, after: MediaTime)
    /// Stop `timer` if it runs.
    case cancelTimer(SIPInviteSessionTimer)
    /// Tell the application.
    case event(SIPInviteSessionEvent)
}
