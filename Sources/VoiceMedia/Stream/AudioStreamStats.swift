import VoiceSupport
/// A snapshot of one stream's media figures, published by the media thread a few times a second.
public struct AudioStreamStats: Sendable, Hashable {
    /// When the snapshot was taken.
    public var timestamp: MediaTime = .zero
    /// Codec name (`opus`, `PCMU`, `PCMA`).
    public var codec: String = ""
    /// RTP payload type in use.
    public var payloadType: UInt8 = 0
    /// Our SSRC and the peer's (0 until the first packet).
    public var ssrc: UInt32 = 0
    public var remoteSSRC: UInt32 = 0

    // Sent
    public var packetsSent: UInt64 = 0
    /// Payload octets sent (RTP header and SRTP tag not counted, as in RTCP SR).
    public var bytesSent: UInt64 = 0
    // Received
    public var packetsReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    /// Cumulative packets lost (RFC 3550: expected − received).
    public var packetsLost: Int64 = 0
    /// Fraction lost over the last RTCP interval, 0…1.
    public var fractionLost: Double = 0
    /// Interarrival jitter of what we receive, in ms (RFC 3550 A.8).
    public var jitterMs: Double = 0
    /// Round-trip time from RTCP LSR/DLSR, in ms; nil until measured.
    public var rttMs: Double?
    /// What the peer reports about our stream in its RTCP (fraction lost 0…1, jitter ms, cumulative lost).
    public var remoteFractionLost: Double = 0
    public var remoteJitterMs: Double = 0
    public var remotePacketsLost: Int64 = 0
    /// Peak level of the last frame sent and the last frame played, 0…32767.
    public var inputLevel: Int = 0
    public var outputLevel: Int = 0
    /// Jitter buffer figures.
    public var jitterBuffer: JitterBufferStats = JitterBufferStats()
    /// Estimated MOS (E-model), 1…4.5.
    public var mos: Double = 4.4
    /// SRTP packets rejected: failed authentication, replayed, or otherwise invalid.
    public var srtpAuthFailures: UInt64 = 0
    public var srtpReplayFailures: UInt64 = 0
    /// Packets that could not be parsed as RTP/RTCP or carried an unexpected payload type.
    public var malformedPackets: UInt64 = 0
    /// Authenticated, well-formed RTP packets from an SSRC other than the one being played
    /// (forged, stale or replayed from another call): counted, never played.
    public var foreignSourcePackets: UInt64 = 0
    /// Whether Opus in-band FEC is on, and the loss hint the encoder was given (percent).
    public var fecEnabled: Bool = false
    public var packetLossHint: Int = 0
    /// The Opus encoder's current target bitrate in bits per second (0 for G.711).
    public var sendBitrate: Int = 0
    /// Opus packets sent that carried in-band FEC (LBRR) for the frame before them.
    public var fecPacketsSent: UInt64 = 0
    /// Captured audio dropped because the stream fell behind, and playout reads that found no audio.
    public var captureOverflows: UInt64 = 0
    public var renderUnderruns: UInt64 = 0
    /// RTCP packets sent and received.
    public var rtcpSent: UInt64 = 0
    public var rtcpReceived: UInt64 = 0
    /// When the last media packet arrived, nil before the first.
    public var lastPacketReceived: MediaTime?

    public init() {}
}
