import VoiceBytes
import VoiceSupport

/// An RTCP Extended Report (XR, packet type 207, RFC 3611 §2): the reporter's SSRC and report
/// blocks. VoIP Metrics blocks are read; other block types are kept as they came.
package struct RTCPExtendedReport: Hashable, Sendable {
    /// The XR packet type.
    package static let packetType: UInt8 = 207

    /// One report block.
    package enum Block: Hashable, Sendable {
        /// VoIP Metrics (block type 7, §4.7).
        case voipMetrics(RTCPVoIPMetrics)
        /// Any other block type: its type-specific byte and its body (after the 4-byte block header).
        case other(blockType: UInt8, typeSpecific: UInt8, body: [UInt8])

        var encodedLength: Int {
            switch self {
            case .voipMetrics: 4 + Int(RTCPVoIPMetrics.blockLength) * 4
            case .other(_, _, let body): 4 + body.count
            }
        }
    }

    /// The source that sends the report.
    package var ssrc: UInt32
    /// The report blocks, in wire order.
    package var blocks: [Block]

    /// Creates a report.
    package init(ssrc: UInt32, blocks: [Block]) {
        self.ssrc = ssrc
        self.blocks = blocks
    }

    /// The VoIP Metrics blocks about `source`.
    package func voipMetrics(about source: UInt32) -> RTCPVoIPMetrics? {
        for case .voipMetrics(let metrics) in blocks where metrics.ssrc == source { return metrics }
        return nil
    }

    /// Reads the packet's body (after the RTCP header). Blocks are read up to the first one that
    /// runs past the packet; a VoIP Metrics block with another length than the RFC's is kept raw.
    ///
    /// - Throws: ``RTCPError/truncated`` when the body is too short for the reporter's SSRC or a
    ///   block overruns it: the caller keeps the packet raw, and the rest of the compound stands.
    init(readingBody reader: inout ByteReader) throws(RTCPError) {
        var blocks: [Block] = []
        do throws(ByteReader.Error) {
            ssrc = try reader.readUInt32()
            while !reader.isAtEnd {
                let type = try reader.readUInt8()
                let typeSpecific = try reader.readUInt8()
                let words = Int(try reader.readUInt16())
                var body = ByteReader(try reader.readBytes(words * 4))
                if type == RTCPVoIPMetrics.blockType, words == Int(RTCPVoIPMetrics.blockLength) {
                    blocks.append(.voipMetrics(try RTCPVoIPMetrics(readingBody: &body)))
                } else {
                    blocks.append(.other(blockType: type, typeSpecific: typeSpecific, body: Array(body.readRemaining())))
                }
            }
        } catch {
            throw RTCPError(error)
        }
        self.blocks = blocks
    }

    /// Bytes the body takes (after the RTCP header).
    var bodyLength: Int { 4 + blocks.reduce(0) { $0 + $1.encodedLength } }

    /// Writes the body (after the RTCP header).
    func writeBody(into writer: inout ByteWriter) throws(ByteWriter.Error) {
        try writer.write(ssrc)
        for block in blocks {
            switch block {
            case .voipMetrics(let metrics):
                try metrics.write(into: &writer)
            case .other(let type, let typeSpecific, let body):
                try writer.write(type)
                try writer.write(typeSpecific)
                try writer.write(UInt16(body.count / 4))
                try body.withUnsafeBytes { raw in
                    Result { () throws(ByteWriter.Error) in try writer.write(bytes: raw) }
                }.get()
            }
        }
    }

    /// Whether every block can be written: a body of whole words that its length field holds.
    var isWritable: Bool {
        blocks.allSatisfy { block in
            guard case .other(_, _, let body) = block else { return true }
            return body.count % 4 == 0 && body.count / 4 <= Int(UInt16.max)
        }
    }
}
