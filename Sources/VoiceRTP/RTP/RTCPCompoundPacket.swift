import VoiceBytes
import VoiceSupport
/// A compound RTCP packet (RFC 3550 §6.1): RTCP packets stacked back to back in one datagram.
///
/// Parsing applies the RFC 3550 A.2 validity checks: version 2 everywhere, padding only on
/// the last packet, each length inside the datagram and the lengths summing to its size, and
/// (unless disabled for reduced-size RTCP, RFC 5506) an SR or RR first. RTCP runs every few
/// seconds, so this type allocates freely; it still reads only through ``ByteReader``.
package struct RTCPCompoundPacket: Hashable, Sendable {
    /// The packets, in wire order.
    package var packets: [RTCPPacket]

    /// Creates a compound packet from its parts.
    package init(packets: [RTCPPacket]) { self.packets = packets }

    /// Creates the regular compound packet: a report, an SDES, and optionally a BYE last.
    package init(report: RTCPPacket, sourceDescription: RTCPSourceDescription, goodbye: RTCPGoodbye? = nil) {
        var packets = [report, .sourceDescription(sourceDescription)]
        if let goodbye { packets.append(.goodbye(goodbye)) }
        self.init(packets: packets)
    }

    /// Parses a compound packet.
    ///
    /// - Parameters:
    ///   - bytes: The datagram.
    ///   - requireReportFirst: Whether the first packet must be an SR or RR (true per RFC 3550).
    /// - Throws: ``RTCPError`` for the first inconsistency found.
    package init(parsing bytes: UnsafeRawBufferPointer, requireReportFirst: Bool = true) throws(RTCPError) {
        guard !bytes.isEmpty else { throw .empty }
        var reader = ByteReader(bytes)
        var packets: [RTCPPacket] = []
        while !reader.isAtEnd {
            let first: UInt8
            let packetType: UInt8
            let words: UInt16
            do throws(ByteReader.Error) {
                first = try reader.readUInt8()
                packetType = try reader.readUInt8()
                words = try reader.readUInt16()
            } catch {
                throw RTCPError(error)
            }
            guard first >> 6 == 2 else { throw .badVersion }
            if packets.isEmpty, requireReportFirst,
                packetType != RTCPSenderReport.packetType, packetType != RTCPReceiverReport.packetType
            {
                throw .badFirstPacket
            }
            var body: UnsafeRawBufferPointer
            do throws(ByteReader.Error) {
                body = try reader.readBytes(Int(words) * 4)
            } catch {
                throw .badLength
            }
            if first & 0x20 != 0 {
                guard reader.isAtEnd else { throw .badPadding }
                body = try Self.removePadding(from: body)
            }
            packets.append(try RTCPPacket(packetType: packetType, count: first & 0x1F, body: body))
        }
        self.packets = packets
    }

    /// Parses a compound packet from an array or slice.
    ///
    /// - Throws: ``RTCPError`` for the first inconsistency found.
    package init(parsing bytes: some Collection<UInt8>, requireReportFirst: Bool = true) throws(RTCPError) {
        let copy = Array(bytes)
        self = try copy.withUnsafeBytes { raw in
            Result { () throws(RTCPError) in try RTCPCompoundPacket(parsing: raw, requireReportFirst: requireReportFirst) }
        }.get()
    }

    private static func removePadding(from body: UnsafeRawBufferPointer) throws(RTCPError) -> UnsafeRawBufferPointer {
        var tail = ByteReader(body)
        var payload = ByteReader(body)
        do throws(ByteReader.Error) {
            try tail.skip(body.count - 1)
            let count = Int(try tail.readUInt8())
            guard count >= 1 else { throw .truncated(needed: 1, remaining: 0) }
            return try payload.readBytes(body.count - count)
        } catch {
            throw .badPadding
        }
    }

    /// Bytes ``serialized()`` produces.
    package var encodedLength: Int { packets.reduce(0) { $0 + $1.encodedLength } }

    /// Writes every packet back to back.
    ///
    /// - Throws: ``RTCPError/empty`` with no packets, or any error from ``RTCPPacket/write(into:)``.
    package func write(into writer: inout ByteWriter) throws(RTCPError) {
        guard !packets.isEmpty else { throw .empty }
        for packet in packets { try packet.write(into: &writer) }
    }

    /// Serializes the compound packet.
    ///
    /// - Throws: As ``write(into:)``.
    package func serialized() throws(RTCPError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: encodedLength)
        try bytes.withUnsafeMutableBytes { raw in
            Result { () throws(RTCPError) in
                var writer = ByteWriter(raw)
                try write(into: &writer)
            }
        }.get()
        return bytes
    }
}
