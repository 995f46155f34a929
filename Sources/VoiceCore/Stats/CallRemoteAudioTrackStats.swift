import VoiceRTP

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

    // What WebRTC's `getStats` calls these (W3C webrtc-stats, `RTCInboundRtpStreamStats`),
    // counted from the first packet at 48 kHz, where the engine already counts them.

    /// `totalSamplesReceived`: samples played, concealed ones included.
    public var totalSamplesReceived: UInt64 = 0
    /// `concealedSamples`: samples made up for frames that did not come in time (lost or
    /// late, and not rebuilt from FEC or RED).
    public var concealedSamples: UInt64 = 0
    /// `silentConcealedSamples`: concealed samples that were silent.
    public var silentConcealedSamples: UInt64 = 0
    /// `concealmentEvents`: runs of concealment, each after a sample that was not concealed.
    public var concealmentEvents: UInt64 = 0
    /// `insertedSamplesForDeceleration`: samples the time-scaler added to grow the
    /// jitter-buffer delay.
    public var insertedSamplesForDeceleration: UInt64 = 0
    /// `removedSamplesForAcceleration`: samples the time-scaler removed to shrink it.
    public var removedSamplesForAcceleration: UInt64 = 0
    /// `jitterBufferDelay`: for the samples played from packets, the sum of how long each
    /// waited between its packet's arrival and its playout, in seconds. Divided by
    /// ``jitterBufferEmittedCount`` it is the mean wait.
    public var jitterBufferDelay: Double = 0
    /// `jitterBufferEmittedCount`: samples played from packets.
    public var jitterBufferEmittedCount: UInt64 = 0
    /// `totalAudioEnergy`: the sum over played frames of the frame's level (``audioLevel``
    /// over 32767) squared times its duration in seconds.
    public var totalAudioEnergy: Double = 0
    /// `totalSamplesDuration`: seconds of audio played.
    public var totalSamplesDuration: Double = 0
    /// `fecPacketsReceived`: Opus frames carrying in-band FEC (LBRR) for the frame before
    /// them, as Chromium counts them: each packet's, and each RED (RFC 2198) copy's. The RED
    /// copies themselves are not FEC, here as in Chromium.
    public var fecPacketsReceived: UInt64 = 0
    /// `fecPacketsDiscarded`: of those, the ones not needed: the frame they protect had come
    /// already, or its turn had passed.
    public var fecPacketsDiscarded: UInt64 = 0

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

extension CallRemoteAudioTrackStats {
    /// Fills the W3C-named counters from the stream's: its playout counters, its time-scaler's
    /// samples, and the jitter buffer's wait, taken from the RTP clock to 48 kHz.
    mutating func setWebRTCCounters(from stats: AudioStreamStats) {
        let inbound = stats.inbound
        totalSamplesReceived = inbound.totalSamplesReceived
        concealedSamples = inbound.concealedSamples
        silentConcealedSamples = inbound.silentConcealedSamples
        concealmentEvents = inbound.concealmentEvents
        totalAudioEnergy = inbound.totalAudioEnergy
        totalSamplesDuration = inbound.totalSamplesDuration
        fecPacketsReceived = inbound.fecPacketsReceived
        fecPacketsDiscarded = inbound.fecPacketsDiscarded
        insertedSamplesForDeceleration = stats.timeStretchAddedSamples
        removedSamplesForAcceleration = stats.timeStretchRemovedSamples
        let clockRate = stats.mediaCodec?.rtpClockRate ?? 48_000
        let scale = 48_000 / Double(max(1, clockRate))
        jitterBufferEmittedCount = UInt64(max(0, Double(stats.jitterBuffer.emittedUnits) * scale))
        jitterBufferDelay = stats.jitterBuffer.emittedDelay * scale
    }
}
