import VoiceMediaTypes
import VoiceSupport

/// The outcome of an offer/answer exchange for the audio stream: everything the media layer
/// needs to configure and start an `AudioStream`. Value type; contains keys: never log `localKey`
/// or `remoteKey` (their descriptions redact the bytes).
public struct SDPNegotiatedMedia: Equatable, Sendable {
    /// The codec to send and receive, with Opus settings adjusted to the peer's `fmtp`.
    public var codec: MediaCodec
    /// The RTP payload type for ``codec``.
    public var payloadType: UInt8
    /// The RTP payload type for `telephone-event` at the codec's clock rate, if both sides have it.
    public var telephoneEventPayloadType: UInt8?
    /// Packetization time to send with, in ms.
    public var ptime: Int
    /// Where to send RTP.
    public var remoteRTP: SDPTransportAddress
    /// Where to send RTCP (equal to ``remoteRTP`` when multiplexed).
    public var remoteRTCP: SDPTransportAddress
    /// Whether RTP and RTCP share one port.
    public var rtcpMux: Bool
    /// Our SRTP key (we encrypt with it), nil for plain RTP.
    public var localKey: SRTPKeyMaterial?
    /// The peer's SRTP key (we decrypt with it), nil for plain RTP.
    public var remoteKey: SRTPKeyMaterial?
    /// What we do: sendrecv, sendonly (the peer holds nothing, we hold it), recvonly or inactive.
    public var direction: SDPDirection

    /// Creates a result.
    public init(
        codec: MediaCodec, payloadType: UInt8, telephoneEventPayloadType: UInt8?, ptime: Int,
        remoteRTP: SDPTransportAddress, remoteRTCP: SDPTransportAddress, rtcpMux: Bool,
        localKey: SRTPKeyMaterial?, remoteKey: SRTPKeyMaterial?, direction: SDPDirection
    ) {
        self.codec = codec
        self.payloadType = payloadType
        self.telephoneEventPayloadType = telephoneEventPayloadType
        self.ptime = ptime
        self.remoteRTP = remoteRTP
        self.remoteRTCP = remoteRTCP
        self.rtcpMux = rtcpMux
        self.localKey = localKey
        self.remoteKey = remoteKey
        self.direction = direction
    }

    /// The encryption for `AudioStreamConfiguration`: SRTP when both keys are known, else unencrypted.
    public var encryption: MediaEncryption {
        if let localKey, let remoteKey { return .srtp(local: localKey, remote: remoteKey) }
        return .unencrypted
    }
}
