/// Statistics of the audio a call sends (Twilio's `TVOLocalAudioTrackStats`).
public struct CallLocalAudioTrackStats: Hashable, Sendable {
    /// The codec in use; nil before negotiation.
    public var codec: AudioCodec?
    /// RTP payload type.
    public var payloadType: UInt8
    /// Our RTP SSRC.
    public var ssrc: UInt32
    /// RTP packets sent.
    public var packetsSent: UInt64
    /// Payload octets sent (RTP header and SRTP tag not counted).
    public var bytesSent: UInt64
    /// Packets of ours the peer reports lost (RTCP receiver report, cumulative).
    public var packetsLost: Int64
    /// Fraction of ours the peer reports lost over its last report interval, 0…1.
    public var fractionLost: Double
    /// Jitter the peer reports for what we send, in ms.
    public var jitterMs: Double
    /// Round-trip time in ms; `nil` until measured.
    public var roundTripTimeMs: Double?
    /// Peak level of the last frame sent, 0…32767 (0 while muted or on hold: silence is sent).
    public var audioLevel: Int
    /// `targetBitrate` (W3C webrtc-stats, `RTCOutboundRtpStreamStats`): the encoder's target, bits
    /// per second (0 for G.711 and G.722, whose rate is fixed). `retransmittedPacketsSent` does
    /// not apply: audio is not retransmitted.
    public var targetBitrate: Int = 0

    /// Creates local track statistics.
    package init(
        codec: AudioCodec? = nil, payloadType: UInt8 = 0, ssrc: UInt32 = 0, packetsSent: UInt64 = 0, bytesSent: UInt64 = 0,
        packetsLost: Int64 = 0, fractionLost: Double = 0, jitterMs: Double = 0, roundTripTimeMs: Double? = nil,
        audioLevel: Int = 0
    ) {
        self.codec = codec
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.packetsSent = packetsSent
        self.bytesSent = bytesSent
        self.packetsLost = packetsLost
        self.fractionLost = fractionLost
        self.jitterMs = jitterMs
        self.roundTripTimeMs = roundTripTimeMs
        self.audioLevel = audioLevel
    }
}
