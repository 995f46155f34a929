import VoiceBytes
import VoiceSupport
extension RTCPPacket {
    /// Parses one packet's body (after the 4-byte header, padding removed).
    ///
    /// - Parameters:
    ///   - packetType: The header's packet type.
    ///   - count: The header's 5-bit count field (RC, SC or APP subtype).
    ///   - body: The body bytes.
    /// - Throws: ``RTCPError/truncated`` when the body is shorter than its counts say. An XR
    ///   packet whose blocks do not fit is kept raw (``other(packetType:count:body:)``) instead:
    ///   the report and BYE beside it still count.
    package init(packetType: UInt8, count: UInt8, body: UnsafeRawBufferPointer) throws(RTCPError) {
        var reader = ByteReader(body)
        if packetType == RTCPExtendedReport.packetType {
            do throws(RTCPError) {
                self = .extendedReport(try RTCPExtendedReport(readingBody: &reader))
            } catch {
                self = .other(packetType: packetType, count: count, body: Array(body))
            }
            return
        }
        do throws(ByteReader.Error) {
            switch packetType {
            case RTCPSenderReport.packetType:
                let ssrc = try reader.readUInt32()
                let ntp = NTPTimestamp(rawValue: try reader.readUInt64())
                let rtpTimestamp = try reader.readUInt32()
                let packets = try reader.readUInt32()
                let octets = try reader.readUInt32()
                let blocks = try Self.readBlocks(count: Int(count), from: &reader)
                self = .senderReport(
                    RTCPSenderReport(
                        ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtpTimestamp, packetCount: packets,
                        octetCount: octets, reportBlocks: blocks, profileExtension: Array(reader.readRemaining())))
            case RTCPReceiverReport.packetType:
                let ssrc = try reader.readUInt32()
                let blocks = try Self.readBlocks(count: Int(count), from: &reader)
                self = .receiverReport(
                    RTCPReceiverReport(
                        ssrc: ssrc, reportBlocks: blocks, profileExtension: Array(reader.readRemaining())))
            case RTCPSourceDescription.packetType:
                self = .sourceDescription(try Self.readSourceDescription(count: Int(count), from: &reader))
            case RTCPGoodbye.packetType:
                var ssrcs: [UInt32] = []
                for _ in 0..<count { ssrcs.append(try reader.readUInt32()) }
                var reason: String?
                if !reader.isAtEnd {
                    let length = Int(try reader.readUInt8())
                    reason = String(decoding: try reader.readBytes(length), as: UTF8.self)
                }
                self = .goodbye(RTCPGoodbye(ssrcs: ssrcs, reason: reason))
            case RTCPApplicationDefined.packetType:
                let ssrc = try reader.readUInt32()
                let name = try reader.readUInt32()
                self = .applicationDefined(
                    RTCPApplicationDefined(
                        subtype: count, ssrc: ssrc, name: name, data: Array(reader.readRemaining())))
            default:
                self = .other(packetType: packetType, count: count, body: Array(reader.readRemaining()))
            }
        } catch {
            throw RTCPError(error)
        }
    }

    private static func readBlocks(count: Int, from reader: inout ByteReader) throws(ByteReader.Error) -> [RTCPReportBlock] {
        var blocks: [RTCPReportBlock] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count { blocks.append(try RTCPReportBlock(reading: &reader)) }
        return blocks
    }

    private static func readSourceDescription(
        count: Int, from reader: inout ByteReader
    ) throws(ByteReader.Error) -> RTCPSourceDescription {
        var chunks: [RTCPSourceDescription.Chunk] = []
        for _ in 0..<count {
            let ssrc = try reader.readUInt32()
            var items: [RTCPSourceDescription.Item] = []
            while true {
                let type = RTCPSourceDescription.ItemType(rawValue: try reader.readUInt8())
                if type.rawValue == 0 {
                    // The null item ends the list; pad to the next 32-bit boundary.
                    try reader.skip((4 - reader.offset % 4) % 4)
                    break
                }
                let length = Int(try reader.readUInt8())
                let value = try reader.readBytes(length)
                if type.isKnown { items.append(RTCPSourceDescription.Item(type: type, value: Array(value))) }
            }
            chunks.append(RTCPSourceDescription.Chunk(ssrc: ssrc, items: items))
        }
        return RTCPSourceDescription(chunks: chunks)
    }
}
