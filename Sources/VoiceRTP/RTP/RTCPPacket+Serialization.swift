import VoiceBytes
import VoiceSupport
extension RTCPPacket {
    /// Bytes ``write(into:)`` produces, header included.
    package var encodedLength: Int {
        RTCPPacket.headerLength + bodyLength
    }

    private var bodyLength: Int {
        switch self {
        case .senderReport(let sr):
            24 + sr.reportBlocks.count * RTCPReportBlock.encodedLength + sr.profileExtension.count
        case .receiverReport(let rr):
            4 + rr.reportBlocks.count * RTCPReportBlock.encodedLength + rr.profileExtension.count
        case .sourceDescription(let sdes):
            sdes.chunks.reduce(0) { total, chunk in
                let items = chunk.items.reduce(0) { $0 + 2 + $1.value.count }
                return total + 4 + items + (4 - items % 4)
            }
        case .goodbye(let bye):
            bye.ssrcs.count * 4
                + (bye.reason.map { reason in
                    let n = 1 + reason.utf8.count
                    return n + (4 - n % 4) % 4
                } ?? 0)
        case .applicationDefined(let app):
            8 + app.data.count
        case .extendedReport(let xr):
            xr.bodyLength
        case .other(_, _, let body):
            body.count
        }
    }

    private var countField: Int {
        switch self {
        case .senderReport(let sr): sr.reportBlocks.count
        case .receiverReport(let rr): rr.reportBlocks.count
        case .sourceDescription(let sdes): sdes.chunks.count
        case .goodbye(let bye): bye.ssrcs.count
        case .applicationDefined(let app): Int(app.subtype)
        case .extendedReport: 0
        case .other(_, let count, _): Int(count)
        }
    }

    /// Checks counts, item lengths and word alignment before writing.
    private func validate() throws(RTCPError) {
        guard countField <= 31 else { throw .badCount }
        guard bodyLength % 4 == 0, encodedLength / 4 - 1 <= Int(UInt16.max) else { throw .badLength }
        switch self {
        case .sourceDescription(let sdes):
            for chunk in sdes.chunks {
                for item in chunk.items where item.value.count > 255 || item.type.rawValue == 0 { throw .badItem }
            }
        case .goodbye(let bye):
            if let reason = bye.reason, reason.utf8.count > 255 { throw .badItem }
        case .extendedReport(let xr):
            guard xr.isWritable else { throw .badLength }
        default:
            break
        }
    }

    /// Writes the packet, header included, without padding.
    ///
    /// - Throws: ``RTCPError/badCount`` for more than 31 blocks/chunks/SSRCs or a subtype above 31,
    ///   ``RTCPError/badLength`` for extension or APP data that is not a multiple of 4,
    ///   ``RTCPError/badItem`` for SDES items of type 0 or items over 255 bytes, ``RTCPError/bufferTooSmall``.
    package func write(into writer: inout ByteWriter) throws(RTCPError) {
        try validate()
        do throws(ByteWriter.Error) {
            try writer.write(UInt8(0x80 | countField))
            try writer.write(packetType)
            try writer.write(UInt16(encodedLength / 4 - 1))
            switch self {
            case .senderReport(let sr):
                try writer.write(sr.ssrc)
                try writer.write(sr.ntpTimestamp.rawValue)
                try writer.write(sr.rtpTimestamp)
                try writer.write(sr.packetCount)
                try writer.write(sr.octetCount)
                for block in sr.reportBlocks { try block.write(into: &writer) }
                try Self.write(sr.profileExtension, into: &writer)
            case .receiverReport(let rr):
                try writer.write(rr.ssrc)
                for block in rr.reportBlocks { try block.write(into: &writer) }
                try Self.write(rr.profileExtension, into: &writer)
            case .sourceDescription(let sdes):
                for chunk in sdes.chunks {
                    try writer.write(chunk.ssrc)
                    var itemBytes = 0
                    for item in chunk.items {
                        try writer.write(item.type.rawValue)
                        try writer.write(UInt8(item.value.count))
                        try Self.write(item.value, into: &writer)
                        itemBytes += 2 + item.value.count
                    }
                    // At least one null octet ends the list, then pad to 32 bits.
                    try writer.writeZeros(4 - itemBytes % 4)
                }
            case .goodbye(let bye):
                for ssrc in bye.ssrcs { try writer.write(ssrc) }
                if let reason = bye.reason {
                    let text = Array(reason.utf8)
                    try writer.write(UInt8(text.count))
                    try Self.write(text, into: &writer)
                    try writer.writeZeros((4 - (1 + text.count) % 4) % 4)
                }
            case .applicationDefined(let app):
                try writer.write(app.ssrc)
                try writer.write(app.name)
                try Self.write(app.data, into: &writer)
            case .extendedReport(let xr):
                try xr.writeBody(into: &writer)
            case .other(_, _, let body):
                try Self.write(body, into: &writer)
            }
        } catch {
            throw RTCPError(error)
        }
    }

    private static func write(_ bytes: [UInt8], into writer: inout ByteWriter) throws(ByteWriter.Error) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(ByteWriter.Error) in try writer.write(bytes: raw) }
        }.get()
    }
}
