/// Event names of the `signaling-state` group: the RFC 3264 offer/answer state of the call's SDP
/// as carried by SIP.
///
/// - `have-local-offer`: we sent an offer (an INVITE or re-INVITE with SDP).
/// - `have-remote-offers`: we received an offer (an INVITE or re-INVITE with SDP). The name is
///   spelled as in the seed's table, which is the contract; WebRTC spells it `have-remote-offer`.
/// - `have-remote-pranswer`: a provisional answer arrived (a 18x with SDP, early media).
/// - `have-local-pranswer`: we sent a provisional answer. Never fires: we answer with 180 without SDP.
/// - `stable`: the offer was answered (2xx with SDP, or the ACK carrying our answer's acceptance).
/// - `closed`: the session ended (BYE, CANCEL, failure).
package enum InsightsSignalingState: String, Hashable, Sendable, CaseIterable {
    /// An offer was answered.
    case stable
    /// We sent an offer.
    case haveLocalOffer = "have-local-offer"
    /// We received an offer.
    case haveRemoteOffer = "have-remote-offers"
    /// We sent a provisional answer (never fires).
    case haveLocalPranswer = "have-local-pranswer"
    /// We received a provisional answer with SDP.
    case haveRemotePranswer = "have-remote-pranswer"
    /// The session ended.
    case closed
}
