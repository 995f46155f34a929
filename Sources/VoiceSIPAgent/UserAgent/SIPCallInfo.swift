import VoiceSIP
import VoiceSupport
/// A snapshot of one call the user agent runs.
package struct SIPCallInfo: Sendable, Equatable {
    /// The Call-ID.
    package var callID: String
    /// Our tag.
    package var localTag: String
    /// The peer's tag, once the dialog exists.
    package var remoteTag: String?
    /// The local RTP port the SDP announces.
    package var mediaPort: UInt16
    /// The sockets bound on ``mediaPort`` and the next port, for the media stream to take over.
    package var reservedMedia: ReservedMediaPort
    /// Whether we placed the call.
    package var isOutgoing: Bool
    /// The session's state.
    package var state: SIPInviteSessionState
    /// The signaling transport of the call.
    package var transport: SIPTransportProtocol
    /// Where the INVITE of an incoming call came from (over TCP/TLS, the connection the peer opened).
    package var invitePeer: SIPTransportEndpoint?
    /// Where the call's requests went so far: the next hops a lost connection can be reopened to.
    package var requestPeers: Set<SIPTransportEndpoint>
    /// Our ICE credentials and candidates (what our DTLS-SRTP descriptions carry); nil for SDES
    /// or plain calls.
    package var localICE: SDPICEParameters? = nil
}
