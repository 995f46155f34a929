import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class TelephoneEventTests: XCTestCase {
    func testParsesBlockFromSliceNotAtZero() throws {
        // RFC 4733 §2.3: event=5, E=1, R=1 (ignored), volume=10, duration=800.
        let bytes: [UInt8] = [0xFF, 0x05, 0xCA, 0x03, 0x20]
        let event = try TelephoneEvent(parsing: bytes[1...])
        XCTAssertEqual(event, TelephoneEvent(event: 5, isEnd: true, volume: 10, duration: 800))
        XCTAssertEqual(event.dtmfDigit, "5")
    }

    func testSerializesWithReservedBitClear() throws {
        XCTAssertEqual(
            try TelephoneEvent(event: 11, isEnd: true, volume: 63, duration: 0xFFFF).serialized(),
            [0x0B, 0xBF, 0xFF, 0xFF])
        XCTAssertEqual(
            try TelephoneEvent(event: 0, isEnd: false, volume: 0, duration: 160).serialized(),
            [0x00, 0x00, 0x00, 0xA0])
    }

    func testRoundTripAllDigits() throws {
        for code: UInt8 in 0...15 {
            let event = TelephoneEvent(event: code, isEnd: code % 2 == 0, volume: code * 3, duration: UInt16(code) * 160)
            XCTAssertEqual(try TelephoneEvent(parsing: try event.serialized()), event)
        }
    }

    func testTruncatedPayloadThrows() {
        for length in 0..<4 {
            XCTAssertThrowsError(try TelephoneEvent(parsing: Array(repeating: UInt8(1), count: length))) {
                XCTAssertEqual($0 as? TelephoneEventError, .truncated)
            }
        }
    }

    func testWriteRejectsBadVolumeAndSmallBuffer() {
        XCTAssertThrowsError(try TelephoneEvent(event: 1, volume: 64, duration: 1).serialized()) {
            XCTAssertEqual($0 as? TelephoneEventError, .volumeOutOfRange)
        }
        var small = [UInt8](repeating: 0, count: 3)
        let result = small.withUnsafeMutableBytes { raw -> TelephoneEventError? in
            do {
                try TelephoneEvent(event: 1, duration: 1).write(into: raw)
                return nil
            } catch {
                return error as? TelephoneEventError
            }
        }
        XCTAssertEqual(result, .bufferTooSmall)
    }

    func testDTMFMapping() {
        let expected: [(Character, UInt8)] = [
            ("0", 0), ("1", 1), ("5", 5), ("9", 9), ("*", 10), ("#", 11),
            ("A", 12), ("B", 13), ("C", 14), ("D", 15), ("a", 12), ("d", 15),
        ]
        for (digit, code) in expected {
            XCTAssertEqual(TelephoneEvent.dtmfEvent(for: digit), code, "\(digit)")
        }
        for bad: Character in ["E", "e", "x", " ", "+", "é"] {
            XCTAssertNil(TelephoneEvent.dtmfEvent(for: bad), "\(bad)")
        }
        XCTAssertEqual((0...15).compactMap { TelephoneEvent.dtmfDigit(for: $0) }, Array("0123456789*#ABCD"))
        XCTAssertNil(TelephoneEvent.dtmfDigit(for: 16))
    }
}
