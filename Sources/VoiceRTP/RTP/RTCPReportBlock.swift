import VoiceBytes
import VoiceSupport
/// One reception report block of an SR or RR (RFC 3550 §6.4.1), 24 bytes on the wire.
package struct RTCPReportBlock: Hashable, Sendable {
    /// The source this block reports on.
    package var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256 units.
    package var fractionLost: UInt8
    /// Cumulative packets lost (24-bit signed on the wire; duplicates can make it negative).
    package var cumulativeLost: Int32
    /// Extended highest sequence number received (cycles in the high 16 bits).
    package var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in RTP timestamp units.
    package var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received from the source, or 0.
    package var lastSR: UInt32
    /// Delay since that SR in 1/65536 s, or 0.
    package var delaySinceLastSR: UInt32

    /// Creates a report block.
    package init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
        jitter: UInt32 = 0, lastSR: UInt32 = 0, delaySinceLastSR: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSR = lastSR
        self.delaySinceLastSR = delaySinceLastSR
    }

    /// Encoded size of a block.
    package static let encodedLength = 24
    /// Largest cumulative loss the 24-bit field holds.
    package static let maxCumulativeLost: Int32 = 0x7F_FFFF
    /// Smallest cumulative loss the 24-bit field holds.
    package static let minCumulativeLost: Int32 = -0x80_0000

    init(reading reader: inout ByteReader) throws(ByteReader.Error) {
        ssrc = try reader.readUInt32()
        fractionLost = try reader.readUInt8()
        let lost = try reader.readUInt24()
        // Sign-extend the 24-bit two's-complement field.
        cumulativeLost = Int32(bitPattern: lost << 8) >> 8
        extendedHighestSequenceNumber = try reader.readUInt32()
        jitter = try reader.readUInt32()
        lastSR = try reader.readUInt32()
        delaySinceLastSR = try reader.readUInt32()
    }

    func write(into writer: inout ByteWriter) throws(ByteWriter.Error) {
        try writer.write(ssrc)
        let lost = min(max(cumulativeLost, Self.minCumulativeLost), Self.maxCumulativeLost)
        try writer.write(UInt32(fractionLost) << 24 | UInt32(bitPattern: lost) & 0xFF_FFFF)
        try writer.write(extendedHighestSequenceNumber)
        try writer.write(jitter)
        try writer.write(lastSR)
        try writer.write(delaySinceLastSR)
    }
}
