/// Why an INVITE session ended.
package enum SIPSessionEndReason: Hashable, Sendable {
    /// We hung up a confirmed call (our BYE) or abandoned the call before it was sent.
    case localHangUp
    /// The peer sent BYE.
    case remoteHangUp
    /// Our CANCEL ended the INVITE (487).
    case cancelledByLocal
    /// The peer cancelled its INVITE before we answered.
    case cancelledByRemote
    /// The peer refused our INVITE with this final status (300–699).
    case rejected(statusCode: Int)
    /// We refused the peer's INVITE with this final status.
    case declined(statusCode: Int)
    /// Transaction timeout, transport failure or failed authentication.
    case failed(SIPFailure)
    /// No ACK arrived for our 2xx within 64·T1 (RFC 3261 §13.3.1.4).
    case ackTimeout
    /// No PRACK came for our reliable provisional response within 64·T1 (RFC 3262 §3): we
    /// refused the INVITE with 500.
    case provisionalNotAcknowledged
    /// No session refresh came in time (RFC 4028 §10): we sent BYE.
    case sessionExpired
    /// A 3xx could not be followed (a loop, too many redirects, no Contact we can call).
    case redirectFailed(SIPRedirects.Failure)
    /// The offer or answer could not be negotiated.
    case mediaNegotiationFailed(SDPNegotiationError)
}
