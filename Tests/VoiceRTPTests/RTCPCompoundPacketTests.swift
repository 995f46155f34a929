import VoiceBytes
import XCTest
@testable import VoiceRTP
import VoiceSupport
import VoiceMediaTypes

final class RTCPCompoundPacketTests: XCTestCase {
    private func parse(_ bytes: [UInt8], requireReportFirst: Bool = true) throws -> [RTCPPacket] {
        // Behind a prefix so the parsed bytes do not start at index 0.
        let padded: [UInt8] = [0x00, 0x11] + bytes
        return try RTCPCompoundPacket(parsing: padded[2...], requireReportFirst: requireReportFirst).packets
    }

    private func parseError(_ bytes: [UInt8], requireReportFirst: Bool = true) -> RTCPError? {
        do {
            _ = try parse(bytes, requireReportFirst: requireReportFirst)
            return nil
        } catch {
            return error as? RTCPError
        }
    }

    // RFC 3550 §6.4.1 SR layout, typed field by field.
    private let senderReport: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0C,  // V=2 P=0 RC=1, PT=200, length=12 (13 words)
        0x11, 0x22, 0x33, 0x44,  // SSRC of sender
        0xE5, 0xD3, 0x3C, 0x00,  // NTP timestamp, most significant word
        0x80, 0x00, 0x00, 0x00,  // NTP timestamp, least significant word (0.5 s)
        0x00, 0x00, 0x1F, 0x40,  // RTP timestamp 8000
        0x00, 0x00, 0x00, 0x64,  // sender's packet count 100
        0x00, 0x00, 0x3E, 0x80,  // sender's octet count 16000
        0x55, 0x66, 0x77, 0x88,  // SSRC_1
        0x40, 0x00, 0x00, 0x05,  // fraction lost 64/256, cumulative lost 5
        0x00, 0x01, 0x00, 0x05,  // extended highest sequence number (1 cycle, seq 5)
        0x00, 0x00, 0x00, 0x20,  // interarrival jitter 32
        0xB7, 0x05, 0x20, 0x00,  // LSR
        0x00, 0x05, 0x40, 0x00,  // DLSR 5.25 s
    ]

    // RFC 3550 §6.5: SDES with one chunk: CNAME "alice@host", NOTE "hi", an unknown type 42.
    private let sourceDescription: [UInt8] = [
        0x81, 0xCA, 0x00, 0x06,  // V=2 SC=1, PT=202, length=6 (7 words)
        0x11, 0x22, 0x33, 0x44,  // SSRC/CSRC_1
        0x01, 0x0A, 0x61, 0x6C, 0x69, 0x63, 0x65, 0x40, 0x68, 0x6F, 0x73, 0x74,  // CNAME "alice@host"
        0x07, 0x02, 0x68, 0x69,  // NOTE "hi"
        0x2A, 0x01, 0x7A,  // unknown item 42, skipped
        0x00,  // end of item list (already on a 32-bit boundary)
    ]

    func testParsesSenderReportVector() throws {
        let packets = try parse(senderReport)
        XCTAssertEqual(
            packets,
            [
                .senderReport(
                    RTCPSenderReport(
                        ssrc: 0x1122_3344,
                        ntpTimestamp: NTPTimestamp(seconds: 0xE5D3_3C00, fraction: 0x8000_0000),
                        rtpTimestamp: 8000, packetCount: 100, octetCount: 16000,
                        reportBlocks: [
                            RTCPReportBlock(
                                ssrc: 0x5566_7788, fractionLost: 64, cumulativeLost: 5, extendedHighestSequenceNumber: 0x0001_0005,
                                jitter: 32, lastSR: 0xB705_2000, delaySinceLastSR: 0x0005_4000)
                        ]))
            ])
        XCTAssertEqual(try RTCPCompoundPacket(packets: packets).serialized(), senderReport)
    }

    func testParsesSourceDescriptionSkippingUnknownItems() throws {
        let rr: [UInt8] = [0x80, 0xC9, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44]
        let packets = try parse(rr + sourceDescription)
        XCTAssertEqual(packets.count, 2)
        XCTAssertEqual(packets[0], .receiverReport(RTCPReceiverReport(ssrc: 0x1122_3344)))
        guard case .sourceDescription(let sdes) = packets[1] else { return XCTFail("expected SDES") }
        XCTAssertEqual(sdes.chunks.count, 1)
        XCTAssertEqual(sdes.chunks[0].ssrc, 0x1122_3344)
        XCTAssertEqual(sdes.chunks[0].cname, "alice@host")
        XCTAssertEqual(sdes.chunks[0].items.map(\.type), [.cname, .note])
        XCTAssertEqual(sdes.chunks[0].items[1].text, "hi")
    }

    func testCompoundRoundTripReportSDESBye() throws {
        let sr = RTCPSenderReport(
            ssrc: 7, ntpTimestamp: NTPTimestamp(unixSeconds: 1_700_000_000.25), rtpTimestamp: 123_456,
            packetCount: 10, octetCount: 1600,
            reportBlocks: [
                RTCPReportBlock(
                    ssrc: 8, fractionLost: 1, cumulativeLost: -3, extendedHighestSequenceNumber: 70000,
                    jitter: 5, lastSR: 9, delaySinceLastSR: 10),
                RTCPReportBlock(ssrc: 11, cumulativeLost: RTCPReportBlock.maxCumulativeLost),
            ])
        let compound = RTCPCompoundPacket(
            report: .senderReport(sr),
            sourceDescription: RTCPSourceDescription(chunks: [
                .init(ssrc: 7, items: [.init(type: .cname, text: "a@b"), .init(type: .tool, text: "VoiceSDK")]),
                .init(ssrc: 12, items: [.init(type: .cname, text: "abcd")]),
            ]),
            goodbye: RTCPGoodbye(ssrcs: [7, 12], reason: "done"))
        let bytes = try compound.serialized()
        XCTAssertEqual(bytes.count % 4, 0)
        XCTAssertEqual(bytes.count, compound.encodedLength)
        XCTAssertEqual(try RTCPCompoundPacket(parsing: bytes), compound)
    }

    func testReceiverReportGoodbyeAppAndOtherRoundTrip() throws {
        let compound = RTCPCompoundPacket(packets: [
            .receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: [RTCPReportBlock(ssrc: 2)], profileExtension: [1, 2, 3, 4])),
            .goodbye(RTCPGoodbye(ssrcs: [1])),
            .goodbye(RTCPGoodbye(ssrcs: [], reason: "")),
            .applicationDefined(RTCPApplicationDefined(subtype: 31, ssrc: 1, name: 0x5445_5354, data: [9, 9, 9, 9])),
            .other(packetType: 205, count: 1, body: [0, 0, 0, 1, 0, 0, 0, 2]),
        ])
        let bytes = try compound.serialized()
        XCTAssertEqual(try RTCPCompoundPacket(parsing: bytes), compound)
        XCTAssertEqual(compound.packets.map(\.packetType), [201, 203, 203, 204, 205])
    }

    func testNegativeCumulativeLossSignExtends() throws {
        var bytes = senderReport
        bytes[33...35] = [0xFF, 0xFF, 0xFE]  // cumulative lost = -2
        guard case .senderReport(let sr) = try parse(bytes)[0] else { return XCTFail("expected SR") }
        XCTAssertEqual(sr.reportBlocks[0].cumulativeLost, -2)
        XCTAssertEqual(sr.reportBlocks[0].fractionLost, 64)
    }

    func testCumulativeLossClampsToTwentyFourBits() throws {
        let rr = RTCPReceiverReport(ssrc: 1, reportBlocks: [RTCPReportBlock(ssrc: 2, cumulativeLost: 10_000_000)])
        let bytes = try RTCPCompoundPacket(packets: [.receiverReport(rr)]).serialized()
        guard case .receiverReport(let parsed) = try parse(bytes)[0] else { return XCTFail("expected RR") }
        XCTAssertEqual(parsed.reportBlocks[0].cumulativeLost, RTCPReportBlock.maxCumulativeLost)
    }

    func testPaddingOnLastPacketIsRemoved() throws {
        // RR, then a BYE with P set: 1 SSRC + 4 bytes padding (count 4). length = 2.
        let bytes: [UInt8] = [
            0x80, 0xC9, 0x00, 0x01, 0, 0, 0, 1,
            0xA1, 0xCB, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 4,
        ]
        XCTAssertEqual(try parse(bytes).last, .goodbye(RTCPGoodbye(ssrcs: [1])))
    }

    func testReducedSizeRTCPWhenAllowed() throws {
        let bye: [UInt8] = [0x81, 0xCB, 0x00, 0x01, 0, 0, 0, 5]
        XCTAssertEqual(parseError(bye), .badFirstPacket)
        XCTAssertEqual(try parse(bye, requireReportFirst: false), [.goodbye(RTCPGoodbye(ssrcs: [5]))])
    }

    func testMalformedCompoundsThrowTypedErrors() {
        let rr: [UInt8] = [0x80, 0xC9, 0x00, 0x01, 0, 0, 0, 1]
        let cases: [(String, [UInt8], RTCPError)] = [
            ("empty", [], .empty),
            ("header cut short", [0x80, 0xC9, 0x00], .truncated),
            ("second header cut short", rr + [0x80], .truncated),
            ("version 1", [0x40, 0xC9, 0x00, 0x01, 0, 0, 0, 1], .badVersion),
            ("version 1 in second packet", rr + [0x41, 0xCB, 0x00, 0x01, 0, 0, 0, 1], .badVersion),
            ("length runs past datagram", [0x80, 0xC9, 0x00, 0x02, 0, 0, 0, 1], .badLength),
            ("trailing bytes shorter than a header", rr + [0, 0], .truncated),
            ("not SR/RR first", [0x81, 0xCA, 0x00, 0x01, 0, 0, 0, 1], .badFirstPacket),
            ("padding on first of two", [0xA0, 0xC9, 0x00, 0x01, 0, 0, 0, 1] + rr, .badPadding),
            ("pad count zero", [0xA0, 0xC9, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0], .badPadding),
            ("pad count beyond body", [0xA0, 0xC9, 0x00, 0x01, 0, 0, 0, 9], .badPadding),
            ("RC=2 with one block", Array(senderReport.prefix(0)) + [0x82] + senderReport.dropFirst(), .truncated),
            ("RR with no SSRC", [0x80, 0xC9, 0x00, 0x00], .truncated),
            (
                "SDES item without terminator",
                rr + [0x81, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x02, 0x61, 0x62], .truncated
            ),
            ("SDES item length lies", rr + [0x81, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x09, 0x61, 0x00], .truncated),
            ("SDES count lies", rr + [0x82, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x01, 0x61, 0x00], .truncated),
            ("BYE count lies", rr + [0x83, 0xCB, 0x00, 0x01, 0, 0, 0, 1], .truncated),
            ("BYE reason length lies", rr + [0x81, 0xCB, 0x00, 0x02, 0, 0, 0, 1, 0x08, 0x61, 0x62, 0x63], .truncated),
            ("APP without name", rr + [0x80, 0xCC, 0x00, 0x01, 0, 0, 0, 1], .truncated),
        ]
        for (name, bytes, expected) in cases {
            XCTAssertEqual(parseError(bytes), expected, name)
        }
    }

    func testSerializationRejectsInvalidPackets() {
        func error(_ packets: [RTCPPacket]) -> RTCPError? {
            do {
                _ = try RTCPCompoundPacket(packets: packets).serialized()
                return nil
            } catch {
                return error
            }
        }
        let blocks = (0..<32).map { RTCPReportBlock(ssrc: UInt32($0)) }
        XCTAssertEqual(error([]), .empty)
        XCTAssertEqual(error([.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: blocks))]), .badCount)
        XCTAssertEqual(error([.receiverReport(RTCPReceiverReport(ssrc: 1, profileExtension: [1, 2, 3]))]), .badLength)
        XCTAssertEqual(
            error([
                .sourceDescription(
                    RTCPSourceDescription(chunks: [
                        .init(ssrc: 1, items: [.init(type: .cname, value: Array(repeating: 0x61, count: 256))])
                    ]))
            ]), .badItem)
        XCTAssertEqual(
            error([
                .sourceDescription(
                    RTCPSourceDescription(chunks: [
                        .init(ssrc: 1, items: [.init(type: RTCPSourceDescription.ItemType(rawValue: 0), value: [])])
                    ]))
            ]), .badItem)
        XCTAssertEqual(error([.goodbye(RTCPGoodbye(ssrcs: [1], reason: String(repeating: "x", count: 256)))]), .badItem)
        XCTAssertEqual(error([.applicationDefined(RTCPApplicationDefined(subtype: 32, ssrc: 1, name: 0))]), .badCount)
        XCTAssertEqual(error([.applicationDefined(RTCPApplicationDefined(subtype: 0, ssrc: 1, name: 0, data: [1]))]), .badLength)
    }

    func testWriteIntoSmallBufferThrows() {
        var storage = [UInt8](repeating: 0, count: 6)
        let result = storage.withUnsafeMutableBytes { raw -> RTCPError? in
            var writer = ByteWriter(raw)
            do {
                try RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 1))]).write(into: &writer)
                return nil
            } catch {
                return error as? RTCPError
            }
        }
        XCTAssertEqual(result, .bufferTooSmall)
    }

    func testSDESChunkPaddingLengths() throws {
        // Item bytes 2+n: a 2-byte item list needs 2 null octets; a 4-byte list needs a full null word.
        for (length, expectedWords) in [(0, 3), (1, 3), (2, 4), (5, 4), (6, 5)] {
            let sdes = RTCPSourceDescription(ssrc: 1, cname: String(repeating: "c", count: length))
            let packet = RTCPPacket.sourceDescription(sdes)
            XCTAssertEqual(packet.encodedLength, expectedWords * 4, "CNAME of \(length) bytes")
            let compound = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 1)), packet])
            XCTAssertEqual(try RTCPCompoundPacket(parsing: try compound.serialized()), compound)
        }
    }
}
