import XCTest

@testable import VoiceRTP

/// RFC 2198 payloads as Chromium writes them around Opus (`a=rtpmap:63 red/48000/2`,
/// `a=fmtp:63 111/111`): block headers, the redundant data oldest first, then the primary.
final class REDPayloadTests: XCTestCase {
    /// Two redundant Opus frames (40 and 20 ms before, 3 and 2 bytes) and a 4-byte primary.
    let chromiumLike: [UInt8] = [
        0x80 | 111, 0x1E, 0x00, 0x03,  // F=1, PT 111, offset 1920 (40 ms at 48 kHz), length 3
        0x80 | 111, 0x0F, 0x00, 0x02,  // F=1, PT 111, offset 960 (20 ms), length 2
        111,  // F=0, primary PT 111
        0xA1, 0xA2, 0xA3,  // the frame 40 ms back
        0xB1, 0xB2,  // the frame 20 ms back
        0xC1, 0xC2, 0xC3, 0xC4,  // the primary
    ]

    private func blocks(_ bytes: [UInt8]) throws -> (primary: [UInt8], redundant: [(UInt8, UInt32, [UInt8])]) {
        try bytes.withUnsafeBytes { raw in
            let view = try REDPayloadView(parsing: raw)
            return (Array(view.primary.data), view.redundant.map { ($0.payloadType, $0.timestampOffset, Array($0.data)) })
        }
    }

    func testTheBlocksOfAChromiumStylePayload() throws {
        let (primary, redundant) = try blocks(chromiumLike)
        XCTAssertEqual(primary, [0xC1, 0xC2, 0xC3, 0xC4])
        XCTAssertEqual(redundant.map(\.0), [111, 111])
        XCTAssertEqual(redundant.map(\.1), [1_920, 960])
        XCTAssertEqual(redundant.map(\.2), [[0xA1, 0xA2, 0xA3], [0xB1, 0xB2]])
        // Only a primary: one header byte.
        let (alone, none) = try blocks([111, 1, 2, 3])
        XCTAssertEqual(alone, [1, 2, 3])
        XCTAssertTrue(none.isEmpty)
    }

    func testWritingAndReadingBackGiveTheSameBlocks() throws {
        let a: [UInt8] = [0xA1, 0xA2, 0xA3], b: [UInt8] = [0xB1, 0xB2], p: [UInt8] = [0xC1, 0xC2, 0xC3, 0xC4]
        var out = [UInt8](repeating: 0, count: 64)
        let written = try a.withUnsafeBytes { ra in
            try b.withUnsafeBytes { rb in
                try p.withUnsafeBytes { rp in
                    let redundant = [
                        REDPayloadView.Block(payloadType: 111, timestampOffset: 1_920, data: ra),
                        REDPayloadView.Block(payloadType: 111, timestampOffset: 960, data: rb),
                    ]
                    return try redundant.withUnsafeBufferPointer { list in
                        try out.withUnsafeMutableBytes {
                            try REDPayloadView.write(primary: .init(payloadType: 111, timestampOffset: 0, data: rp), redundant: list, into: $0)
                        }
                    }
                }
            }
        }
        XCTAssertEqual(Array(out[0..<written]), chromiumLike)
    }

    func testWhatCannotBeWrittenIsRefused() throws {
        let big = [UInt8](repeating: 1, count: 1_024), small: [UInt8] = [1]
        var out = [UInt8](repeating: 0, count: 2_048)
        func write(offset: UInt32, data: [UInt8], room: Int = 2_048) -> REDError? {
            data.withUnsafeBytes { rd in
                small.withUnsafeBytes { rp in
                    let list = [REDPayloadView.Block(payloadType: 111, timestampOffset: offset, data: rd)]
                    return list.withUnsafeBufferPointer { list in
                        out.withUnsafeMutableBytes { raw in
                            do throws(REDError) {
                                _ = try REDPayloadView.write(
                                    primary: .init(payloadType: 111, timestampOffset: 0, data: rp), redundant: list,
                                    into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<room]))
                                return nil
                            } catch { return error }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(write(offset: 1 << 14, data: small), .unrepresentable, "offset over 14 bits")
        XCTAssertEqual(write(offset: 960, data: big), .unrepresentable, "a block of 1,024 bytes")
        XCTAssertEqual(write(offset: 960, data: small, room: 6), .bufferTooSmall)
        XCTAssertNil(write(offset: 960, data: small, room: 7))
    }

    func testMalformedPayloadsAreTypedErrors() {
        func parse(_ bytes: [UInt8]) -> REDError? {
            bytes.withUnsafeBytes { raw in
                do throws(REDError) {
                    _ = try REDPayloadView(parsing: raw)
                    return nil
                } catch { return error }
            }
        }
        XCTAssertEqual(parse([]), .truncated, "empty")
        XCTAssertEqual(parse([0x80 | 111, 0x07]), .truncated, "a header cut short")
        XCTAssertEqual(parse([0x80 | 111, 0x07, 0x80, 0x02]), .truncated, "no final header")
        XCTAssertEqual(parse([0x80 | 111, 0x07, 0x83, 0xFF, 111, 1, 2]), .truncated, "a block length past the packet")
        let header: [UInt8] = [0x80 | 111, 0x07, 0x80, 0x00]
        let many: [UInt8] = (0..<9).flatMap { _ in header } + [111]
        XCTAssertEqual(parse(many), .tooManyBlocks)
        let eight: [UInt8] = (0..<8).flatMap { _ in header } + [111]
        XCTAssertNil(parse(eight))
    }

    func testTheFilterKeepsTheCodecsBlocksInOrderAndCountsTheRest() throws {
        // Blocks: Opus 40 ms back, G.711 (unknown here), RED inside RED, Opus 60 ms back (out of
        // order), Opus at offset 0, Opus 20 ms back; primary Opus.
        let bytes: [UInt8] = [
            0x80 | 111, 0x1E, 0x00, 0x01,  // offset 1920, 1 byte
            0x80 | 0, 0x0F, 0x00, 0x01,  // PCMU
            0x80 | 63, 0x0F, 0x00, 0x01,  // RED in RED
            0x80 | 111, 0x2D, 0x00, 0x01,  // offset 2880: older than the block before
            0x80 | 111, 0x00, 0x00, 0x01,  // offset 0
            0x80 | 111, 0x0F, 0x00, 0x01,  // offset 960
            111,
            0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xC0,
        ]
        var filter = REDBlockFilter()
        var played: [(UInt32, [UInt8])] = []
        try bytes.withUnsafeBytes { raw in
            let view = try REDPayloadView(parsing: raw)
            filter.playable(view, timestamp: 100_000, codecType: 111, redType: 63) { block, timestamp, _ in
                played.append((timestamp, Array(block.data)))
            }
        }
        XCTAssertEqual(played.map(\.0), [100_000, 98_080, 99_040], "the primary first, then the gaps oldest first")
        XCTAssertEqual(played.map(\.1), [[0xC0], [0xA0], [0xA5]])
        XCTAssertEqual(filter.unknownType, 1)
        XCTAssertEqual(filter.nested, 1)
        XCTAssertEqual(filter.outOfOrder, 2)
        // A primary that is RED again, or another codec, does not play; its redundancy still does.
        let nestedPrimary: [UInt8] = [0x80 | 111, 0x0F, 0x00, 0x01, 63, 0xA0, 0xC0]
        played.removeAll()
        try nestedPrimary.withUnsafeBytes { raw in
            filter.playable(try REDPayloadView(parsing: raw), timestamp: 5_000, codecType: 111, redType: 63) { block, timestamp, _ in
                played.append((timestamp, Array(block.data)))
            }
        }
        XCTAssertEqual(played.map(\.0), [4_040])
        XCTAssertEqual(filter.nested, 2)
    }
}
