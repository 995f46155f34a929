/// Statistics of the audio a call receives (Twilio's `TVORemoteAudioTrackStats`).
public struct CallRemoteAudioTrackStats: Hashable, Sendable {
    /// The codec in use; nil before negotiation.
    public var codec: AudioCodec?
    /// The peer's RTP SSRC; 0 before the first packet.
    public var ssrc: UInt32
    /// RTP packets received.
    public var packetsReceived: UInt64
    /// Payload octets received.
    public var bytesReceived: UInt64
    /// Packets lost (RFC 3550: expected − received, cumulative).
    public var packetsLost: Int64
    /// Fraction lost over the last RTCP interval, 0…1.
    public var fractionLost: Double
    /// Interarrival jitter in ms (RFC 3550 A.8).
    public var jitterMs: Double
    /// Jitter-buffer delay currently applied, in ms.
    public var jitterBufferDelayMs: Double
    /// Peak level of the last frame played, 0…32767.
    public var audioLevel: Int
    /// Estimated mean opinion score (E-model, 1…4.5); `nil` before the first packet.
    public var mos: Double?

    /// Creates remote track statistics.
    package init(
        codec: AudioCodec? = nil, ssrc: UInt32 = 0, packetsReceived: UInt64 = 0, bytesReceived: UInt64 = 0,
        packetsLost: Int64 = 0, fractionLost: Double = 0, jitterMs: Double = 0, jitterBufferDelayMs: Double = 0,
        audioLevel: Int = 0, mos: Double? = nil
    ) {
        self.codec = codec
        self.ssrc = ssrc
        self.packetsReceived = packetsReceived
        self.bytesReceived = bytesReceived
        self.packetsLost = packetsLost
        self.fractionLost = fractionLost
        self.jitterMs = jitterMs
        self.jitterBufferDelayMs = jitterBufferDelayMs
        self.audioLevel = audioLevel
        self.mos = mos
    }
}
