import VoiceBytes
import XCTest
@testable import VoiceRTP
import VoiceSupport
import VoiceMediaTypes

final class RTPPacketTests: XCTestCase {
    /// Runs `body` over `bytes` copied behind a 3-byte prefix, so the slice does not start at index 0.
    private func withSlice<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let padded: [UInt8] = [0xEE, 0xEE, 0xEE] + bytes + [0xDD]
        let slice = padded[3..<(3 + bytes.count)]
        return try slice.withUnsafeBytes(body)
    }

    private func parseError(_ bytes: [UInt8]) -> RTPError? {
        withSlice(bytes) { raw -> RTPError? in
            do {
                _ = try RTPPacketView(parsing: raw)
                return nil
            } catch {
                return error as? RTPError
            }
        }
    }

    // RFC 3550 §5.1 fixed header, typed field by field:
    // V=2 P=0 X=0 CC=0 | M=1 PT=0 (PCMU, RFC 3551) | seq=0x1234 | ts=0xDEADBEEF | SSRC=0x0A0B0C0D
    private let minimalPacket: [UInt8] = [
        0x80, 0x80, 0x12, 0x34,
        0xDE, 0xAD, 0xBE, 0xEF,
        0x0A, 0x0B, 0x0C, 0x0D,
        0x01, 0x02, 0x03,
    ]

    func testParsesFixedHeaderFromSliceNotAtZero() throws {
        try withSlice(minimalPacket) { raw in
            let view = try RTPPacketView(parsing: raw)
            XCTAssertEqual(view.version, 2)
            XCTAssertTrue(view.marker)
            XCTAssertEqual(view.payloadType, 0)
            XCTAssertEqual(view.sequenceNumber, 0x1234)
            XCTAssertEqual(view.timestamp, 0xDEAD_BEEF)
            XCTAssertEqual(view.ssrc, 0x0A0B_0C0D)
            XCTAssertEqual(view.csrcCount, 0)
            XCTAssertNil(view.extensionProfile)
            XCTAssertNil(view.extensionData)
            XCTAssertEqual(view.paddingLength, 0)
            XCTAssertEqual(Array(view.payload), [1, 2, 3])
        }
    }

    // Full header: V=2 P=1 X=1 CC=2, M=0 PT=111, two CSRCs, a one-word extension, 2-byte payload, 4 bytes padding.
    private let fullPacket: [UInt8] = [
        0xB2, 0x6F, 0xFF, 0xFF,
        0x00, 0x00, 0x00, 0x01,
        0x11, 0x22, 0x33, 0x44,
        0x00, 0x00, 0x00, 0x0A,  // CSRC 1
        0x00, 0x00, 0x00, 0x0B,  // CSRC 2
        0xAB, 0xCD, 0x00, 0x01,  // extension profile 0xABCD, 1 word
        0xCA, 0xFE, 0xBA, 0xBE,
        0x99, 0x98,  // payload
        0x00, 0x00, 0x00, 0x04,  // padding, count 4
    ]

    func testParsesCSRCsExtensionAndPadding() throws {
        try withSlice(fullPacket) { raw in
            let view = try RTPPacketView(parsing: raw)
            XCTAssertTrue(view.hasPadding)
            XCTAssertTrue(view.hasExtension)
            XCTAssertFalse(view.marker)
            XCTAssertEqual(view.payloadType, 111)
            XCTAssertEqual(view.sequenceNumber, 65535)
            XCTAssertEqual(view.csrcCount, 2)
            XCTAssertEqual(view.csrc(at: 0), 10)
            XCTAssertEqual(view.csrc(at: 1), 11)
            XCTAssertEqual(view.extensionProfile, 0xABCD)
            XCTAssertEqual(view.extensionData.map(Array.init), [0xCA, 0xFE, 0xBA, 0xBE])
            XCTAssertNil(view.extensionElements, "0xABCD is not an RFC 8285 profile")
            XCTAssertEqual(Array(view.payload), [0x99, 0x98])
            XCTAssertEqual(view.paddingLength, 4)
        }
    }

    func testOwningPacketRoundTripsFullHeader() throws {
        let packet = try RTPPacket(parsing: fullPacket[...])
        XCTAssertEqual(packet.header.csrcs, [10, 11])
        XCTAssertEqual(packet.header.extension, RTPHeaderExtension(profile: 0xABCD, data: [0xCA, 0xFE, 0xBA, 0xBE]))
        XCTAssertEqual(packet.header.padding, 4)
        XCTAssertEqual(try packet.serialized(), fullPacket)
    }

    func testBuiltPacketRoundTrips() throws {
        let ext = try RTPHeaderExtension.oneByte([RTPHeaderExtensionElement(id: 3, data: [0x80])])
        let header = RTPHeader(
            marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 0xFFFF_FFFF, ssrc: 42,
            csrcs: Array(1...15), extension: ext, padding: 3)
        let packet = RTPPacket(header: header, payload: Array(0..<20))
        let bytes = try packet.serialized()
        XCTAssertEqual(bytes.count, 12 + 60 + 8 + 20 + 3)
        XCTAssertEqual(bytes.last, 3)
        XCTAssertEqual(try RTPPacket(parsing: bytes), packet)
    }

    func testWriteMinimalMatchesFullWriter() throws {
        var fast = [UInt8](repeating: 0, count: 12)
        let written = fast.withUnsafeMutableBytes { raw in
            RTPHeader.writeMinimal(
                marker: true, payloadType: 0, sequenceNumber: 0x1234, timestamp: 0xDEAD_BEEF,
                ssrc: 0x0A0B_0C0D, into: raw)
        }
        XCTAssertEqual(written, 12)
        XCTAssertEqual(fast, Array(minimalPacket.prefix(12)))

        var small = [UInt8](repeating: 0, count: 11)
        XCTAssertEqual(
            small.withUnsafeMutableBytes {
                RTPHeader.writeMinimal(marker: false, payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, into: $0)
            }, 0)
        var ok = [UInt8](repeating: 0, count: 12)
        XCTAssertEqual(
            ok.withUnsafeMutableBytes {
                RTPHeader.writeMinimal(marker: false, payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0, into: $0)
            }, 0)
    }

    func testHeaderWriteRejectsInvalidFields() {
        var storage = [UInt8](repeating: 0, count: 256)
        func writeError(_ header: RTPHeader) -> RTPError? {
            storage.withUnsafeMutableBytes { raw -> RTPError? in
                var writer = ByteWriter(raw)
                do {
                    try header.write(into: &writer)
                    return nil
                } catch {
                    return error as? RTPError
                }
            }
        }
        XCTAssertEqual(writeError(RTPHeader(payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0)), .badPayloadType)
        XCTAssertEqual(
            writeError(
                RTPHeader(
                    payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                    csrcs: Array(repeating: 1, count: 16))), .badCSRCCount)
        XCTAssertEqual(
            writeError(
                RTPHeader(
                    payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                    extension: RTPHeaderExtension(profile: 1, data: [1, 2, 3]))), .badExtensionLength)
        var tiny = [UInt8](repeating: 0, count: 8)
        let overflow = tiny.withUnsafeMutableBytes { raw -> RTPError? in
            var writer = ByteWriter(raw)
            do {
                try RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0).write(into: &writer)
                return nil
            } catch {
                return error as? RTPError
            }
        }
        XCTAssertEqual(overflow, .bufferTooSmall)
    }

    func testMalformedPacketsThrowTypedErrors() {
        let cases: [(String, [UInt8], RTPError)] = [
            ("empty", [], .truncated),
            ("short fixed header", Array(minimalPacket.prefix(11)), .truncated),
            ("version 1", [0x40] + minimalPacket.dropFirst(), .badVersion),
            ("version 0", [0x00] + minimalPacket.dropFirst(), .badVersion),
            ("version 3", [0xC0] + minimalPacket.dropFirst(), .badVersion),
            ("CC=3 with one CSRC present", [0x83, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 9], .badCSRCCount),
            ("CC=15 with nothing after header", [0x8F] + minimalPacket.dropFirst().prefix(11), .badCSRCCount),
            ("X set, no extension header", [0x90, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xBE], .truncated),
            (
                "extension length lies", [0x90, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xBE, 0xDE, 0x00, 0x02, 0x10, 0xAA, 0, 0],
                .badExtensionLength
            ),
            ("P set, no bytes after header", [0xA0, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], .badPadding),
            ("pad count zero", [0xA0, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xAA, 0x00], .badPadding),
            ("pad count larger than body", [0xA0, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xAA, 0x03], .badPadding),
            ("RTCP SR on mux port", [0x80, 200, 0, 6, 0, 0, 0, 1, 0, 0, 0, 1], .badPayloadType),
            ("RTCP RR on mux port", [0x81, 201, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1], .badPayloadType),
        ]
        for (name, bytes, expected) in cases {
            XCTAssertEqual(parseError(bytes), expected, name)
        }
    }

    func testPaddingEqualToWholeBodyIsAccepted() throws {
        let bytes: [UInt8] = [0xA0, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 3]
        try withSlice(bytes) { raw in
            let view = try RTPPacketView(parsing: raw)
            XCTAssertEqual(view.payload.count, 0)
            XCTAssertEqual(view.paddingLength, 3)
        }
    }

    func testDistinguishesRTCPOnMuxedPort() {
        // RFC 5761 §4: second byte 192-223 is RTCP.
        let sr: [UInt8] = [0x80, 200, 0x00, 0x06]
        let rr: [UInt8] = [0x81, 201, 0x00, 0x07]
        let feedback: [UInt8] = [0x81, 205, 0x00, 0x02]
        let rtpMarkerPT0: [UInt8] = [0x80, 0x80, 0x00, 0x01]
        let rtpPT111: [UInt8] = [0x80, 111, 0x00, 0x01]
        XCTAssertTrue(withSlice(sr) { RTPPacketView.isRTCP($0) })
        XCTAssertTrue(withSlice(rr) { RTPPacketView.isRTCP($0) })
        XCTAssertTrue(withSlice(feedback) { RTPPacketView.isRTCP($0) })
        XCTAssertFalse(withSlice(rtpMarkerPT0) { RTPPacketView.isRTCP($0) })
        XCTAssertFalse(withSlice(rtpPT111) { RTPPacketView.isRTCP($0) })
        XCTAssertFalse(withSlice([0x80]) { RTPPacketView.isRTCP($0) })
        XCTAssertFalse(withSlice([]) { RTPPacketView.isRTCP($0) })
    }

    func testErrorsHaveDescriptions() {
        XCTAssertEqual(RTPError.badVersion.description, "RTP version is not 2")
        XCTAssertNotEqual(RTPError.truncated, RTPError.badPadding)
    }
}
