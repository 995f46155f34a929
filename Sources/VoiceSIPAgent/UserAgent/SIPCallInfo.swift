import VoiceSIP
import VoiceSupport
/// A snapshot of one call the user agent runs.
public struct SIPCallInfo: Sendable, Equatable {
    /// The Call-ID.
    public var callID: String
    /// Our tag.
    public var localTag: String
    /// The peer's tag, once the dialog exists.
    public var remoteTag: String?
    /// The local RTP port the SDP announces.
    public var mediaPort: UInt16
    /// Whether we placed the call.
    public var isOutgoing: Bool
    /// The session's state.
    public var state: SIPInviteSessionState
    /// The signaling transport of the call.
    public var transport: SIPTransportProtocol
    /// Where the INVITE of an incoming call came from (over TCP/TLS, the connection the peer opened).
    public var invitePeer: SIPTransportEndpoint?
    /// Where the call's requests went so far: the next hops a lost connection can be reopened to.
    public var requestPeers: Set<SIPTransportEndpoint>
}
