import VoiceBytes
import VoiceSupport

/// The VoIP Metrics report block of an RTCP XR packet (RFC 3611 §4.7): a receiver's loss,
/// discard, burst, delay and quality figures for one source, 36 bytes on the wire.
///
/// Rates and densities are fractions in 1/256 units, durations and delays milliseconds. The
/// RFC's "unavailable" values are 127 for the levels, R factors and MOS figures.
package struct RTCPVoIPMetrics: Hashable, Sendable {
    /// The block type (BT) of VoIP Metrics.
    package static let blockType: UInt8 = 7
    /// The block length field of a VoIP Metrics block: 8 words after its header.
    package static let blockLength: UInt16 = 8
    /// What the level, R factor and MOS fields say when the receiver does not measure them.
    package static let unavailable: UInt8 = 127

    /// The source the figures are about.
    package var ssrc: UInt32
    /// Packets lost since reception began, in 1/256.
    package var lossRate: UInt8 = 0
    /// Packets the receiver's jitter buffer discarded (late or early), in 1/256.
    package var discardRate: UInt8 = 0
    /// Packets lost or discarded within bursts, as a fraction of the packets of the bursts, in 1/256.
    package var burstDensity: UInt8 = 0
    /// The same within the gaps between bursts, in 1/256.
    package var gapDensity: UInt8 = 0
    /// The mean length of a burst, ms.
    package var burstDuration: UInt16 = 0
    /// The mean length of a gap, ms.
    package var gapDuration: UInt16 = 0
    /// The round trip the receiver measured, ms (0: unknown).
    package var roundTripDelay: UInt16 = 0
    /// The receiver's own delay (buffering, decoding, playout), ms (0: unknown).
    package var endSystemDelay: UInt16 = 0
    /// Speech level, dBm0 as a signed byte, or ``unavailable``.
    package var signalLevel: UInt8 = RTCPVoIPMetrics.unavailable
    /// Noise level, dBm0 as a signed byte, or ``unavailable``.
    package var noiseLevel: UInt8 = RTCPVoIPMetrics.unavailable
    /// Residual echo return loss, dB, or ``unavailable``.
    package var residualEchoReturnLoss: UInt8 = RTCPVoIPMetrics.unavailable
    /// The gap threshold: a burst holds no run of `gmin` or more received packets (§4.7.2).
    package var gmin: UInt8 = 16
    /// The R factor (ITU-T G.107), or ``unavailable``.
    package var rFactor: UInt8 = RTCPVoIPMetrics.unavailable
    /// The external R factor, or ``unavailable``.
    package var externalRFactor: UInt8 = RTCPVoIPMetrics.unavailable
    /// Listening-quality MOS times ten, or ``unavailable``.
    package var mosLQ: UInt8 = RTCPVoIPMetrics.unavailable
    /// Conversational-quality MOS times ten, or ``unavailable``.
    package var mosCQ: UInt8 = RTCPVoIPMetrics.unavailable
    /// Receiver configuration: concealment (2 bits), jitter buffer adaptive (2 bits), rate (4 bits).
    package var receiverConfiguration: UInt8 = 0
    /// The jitter buffer's nominal delay, ms.
    package var jitterBufferNominal: UInt16 = 0
    /// The jitter buffer's current maximum delay, ms.
    package var jitterBufferMaximum: UInt16 = 0
    /// The most the jitter buffer could delay, ms.
    package var jitterBufferAbsoluteMaximum: UInt16 = 0

    /// Creates a block about `ssrc` with every figure zero or unavailable.
    package init(ssrc: UInt32) { self.ssrc = ssrc }

    /// The mean number of packets lost in a row within a burst, where the block's bursts are
    /// runs of consecutive losses (``gmin`` 1); nil otherwise, or with no burst.
    ///
    /// With a gap threshold of 1 a burst holds no received packet, so it is exactly a run of
    /// two or more losses in a row (a single loss between received packets is in a gap).
    /// Larger thresholds fold runs with a few packets between them into one burst, and their
    /// length no longer says how many packets were lost in a row.
    package func meanLossRun(packetMilliseconds: Int) -> Double? {
        guard gmin == 1, burstDuration > 0, packetMilliseconds > 0 else { return nil }
        return Double(burstDuration) / Double(packetMilliseconds) * Double(burstDensity) / 255
    }

    /// The share of losses that fell in bursts rather than gaps, from the densities and mean
    /// durations (each burst is followed by a gap); nil with no loss.
    package var burstLossShare: Double? {
        let inBursts = Double(burstDensity) * Double(burstDuration)
        let inGaps = Double(gapDensity) * Double(gapDuration)
        guard inBursts + inGaps > 0 else { return nil }
        return inBursts / (inBursts + inGaps)
    }

    init(readingBody reader: inout ByteReader) throws(ByteReader.Error) {
        ssrc = try reader.readUInt32()
        lossRate = try reader.readUInt8()
        discardRate = try reader.readUInt8()
        burstDensity = try reader.readUInt8()
        gapDensity = try reader.readUInt8()
        burstDuration = try reader.readUInt16()
        gapDuration = try reader.readUInt16()
        roundTripDelay = try reader.readUInt16()
        endSystemDelay = try reader.readUInt16()
        signalLevel = try reader.readUInt8()
        noiseLevel = try reader.readUInt8()
        residualEchoReturnLoss = try reader.readUInt8()
        gmin = try reader.readUInt8()
        rFactor = try reader.readUInt8()
        externalRFactor = try reader.readUInt8()
        mosLQ = try reader.readUInt8()
        mosCQ = try reader.readUInt8()
        receiverConfiguration = try reader.readUInt8()
        _ = try reader.readUInt8()  // reserved
        jitterBufferNominal = try reader.readUInt16()
        jitterBufferMaximum = try reader.readUInt16()
        jitterBufferAbsoluteMaximum = try reader.readUInt16()
    }

    /// Writes the block, its 4-byte header included.
    func write(into writer: inout ByteWriter) throws(ByteWriter.Error) {
        try writer.write(Self.blockType)
        try writer.write(UInt8(0))
        try writer.write(Self.blockLength)
        try writer.write(ssrc)
        for byte in [lossRate, discardRate, burstDensity, gapDensity] { try writer.write(byte) }
        for field in [burstDuration, gapDuration, roundTripDelay, endSystemDelay] { try writer.write(field) }
        for byte in [signalLevel, noiseLevel, residualEchoReturnLoss, gmin, rFactor, externalRFactor, mosLQ, mosCQ] {
            try writer.write(byte)
        }
        try writer.write(receiverConfiguration)
        try writer.write(UInt8(0))
        for field in [jitterBufferNominal, jitterBufferMaximum, jitterBufferAbsoluteMaximum] { try writer.write(field) }
    }
}
