/// What an ``SIPInviteSession`` tells the application.
package enum SIPInviteSessionEvent: Sendable, Equatable {
    /// A provisional response other than 180 (100, 181, 182, 183 without SDP...).
    case progress(statusCode: Int)
    /// 180 Ringing.
    case ringing
    /// Our INVITE went on to `to`: the Contact of a 3xx with `statusCode`, or (nil) the next
    /// Contact of an earlier one after a target failed.
    case redirected(statusCode: Int?, to: SIPURI)
    /// A provisional response answered our offer: early media may flow.
    case earlyMedia(SDPNegotiatedMedia)
    /// Our 2xx answered the peer's offer with this media (we are the callee): the media may
    /// start now, so that the peer's first packets and ICE checks meet it; the call is up once
    /// the ACK comes (``established(_:)``).
    case answered(SDPNegotiatedMedia)
    /// The call is up with this media.
    case established(SDPNegotiatedMedia)
    /// A re-INVITE (ours or the peer's) changed the media: hold, resume, new address.
    case mediaUpdated(SDPNegotiatedMedia)
    /// An INFO with a body we accepted (application/json), with all its header fields (where
    /// the application finds its own, e.g. `X-` headers describing the content). It may arrive
    /// in an early dialog, before the call is answered.
    case infoReceived(contentType: String, body: [UInt8], headers: SIPHeaders)
    /// An INFO carrying application/dtmf-relay: the digit and its duration in ms.
    case dtmfReceived(digit: Character, duration: Int)
    /// The final status of an INFO we sent, identified by the CSeq number of the request
    /// ``SIPInviteSession/sendInfo(contentType:body:headers:now:)`` returned: 408 when timer F
    /// fired, 503 when the transport failed or the connection it went over was lost.
    case infoResult(cseq: UInt32, statusCode: Int)
    /// Our hold re-INVITE failed with this status (the media before it stays); nil when it
    /// could not be sent (call not confirmed or another offer outstanding).
    case holdFailed(statusCode: Int?)
    /// Our resume re-INVITE failed with this status; nil when it could not be sent.
    case resumeFailed(statusCode: Int?)
    /// Our session-refresh re-INVITE (RFC 4028) failed with this status; nil when it could not
    /// be sent. The call goes on: it ends if no refresh succeeds before the session expires.
    case sessionRefreshFailed(statusCode: Int?)
    /// The peer asks us to call a transfer target (REFER): answer with
    /// ``SIPInviteSession/answerRefer(accept:statusCode:now:)``.
    case referReceived(SIPReferRequest)
    /// How our REFER goes: its answer, then the transferee's NOTIFYs.
    case referProgress(SIPReferProgress)
    /// The session is over.
    case terminated(SIPSessionEndReason)
}
