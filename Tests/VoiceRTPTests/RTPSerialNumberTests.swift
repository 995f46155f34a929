import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class RTPSerialNumberTests: XCTestCase {
    func testSequenceNumberOrderingAcrossWrap() {
        XCTAssertTrue(RTPSerialNumber.isNewer(UInt16(0), than: 65535))
        XCTAssertFalse(RTPSerialNumber.isNewer(UInt16(65535), than: 0))
        XCTAssertTrue(RTPSerialNumber.isNewer(UInt16(5), than: 65530))
        XCTAssertTrue(RTPSerialNumber.isNewer(UInt16(2), than: 1))
        XCTAssertFalse(RTPSerialNumber.isNewer(UInt16(1), than: 1))
        // Exactly half the space apart: ordered one way only.
        XCTAssertNotEqual(RTPSerialNumber.isNewer(UInt16(0x8000), than: 0), RTPSerialNumber.isNewer(UInt16(0), than: 0x8000))
        XCTAssertEqual(RTPSerialNumber.distance(from: UInt16(65535), to: 1), 2)
        XCTAssertEqual(RTPSerialNumber.distance(from: UInt16(1), to: 65535), -2)
    }

    func testTimestampOrderingAcrossWrap() {
        XCTAssertTrue(RTPSerialNumber.isNewer(UInt32(100), than: UInt32.max - 100))
        XCTAssertFalse(RTPSerialNumber.isNewer(UInt32.max - 100, than: UInt32(100)))
        XCTAssertNotEqual(RTPSerialNumber.isNewer(UInt32(0x8000_0000), than: 0), RTPSerialNumber.isNewer(UInt32(0), than: 0x8000_0000))
        XCTAssertEqual(RTPSerialNumber.distance(from: UInt32.max, to: UInt32(159)), 160)
    }

    func testSequenceUnwrapperAcrossWrapWithReordering() {
        var unwrapper = SequenceNumberUnwrapper()
        XCTAssertNil(unwrapper.highest)
        XCTAssertEqual(unwrapper.unwrap(65533), 65533)
        XCTAssertEqual(unwrapper.unwrap(65535), 65535)
        XCTAssertEqual(unwrapper.unwrap(0), 65536)
        XCTAssertEqual(unwrapper.unwrap(65534), 65534, "late packet from before the wrap stays in the old cycle")
        XCTAssertEqual(unwrapper.unwrap(2), 65538)
        XCTAssertEqual(unwrapper.unwrap(1), 65537)
        XCTAssertEqual(unwrapper.highest, 65538)
    }

    func testSequenceUnwrapperManyCycles() {
        var unwrapper = SequenceNumberUnwrapper()
        var seq: UInt16 = 60000
        var last: Int64 = unwrapper.unwrap(seq)
        for _ in 0..<300_000 {
            seq &+= 1
            let value = unwrapper.unwrap(seq)
            XCTAssertEqual(value, last + 1)
            last = value
        }
        XCTAssertEqual(last, 60000 + 300_000)
    }

    func testSequenceUnwrapperOlderThanFirstGoesNegative() {
        var unwrapper = SequenceNumberUnwrapper()
        XCTAssertEqual(unwrapper.unwrap(0), 0)
        XCTAssertEqual(unwrapper.unwrap(65535), -1)
        XCTAssertEqual(unwrapper.highest, 0)
    }

    /// The jitter buffer extends against its own highest value: every 16-bit value lands within
    /// -32768...32767 of the reference, as a signed 16-bit difference would put it.
    func testExtendPlacesEveryValueWithinHalfARangeOfTheReference() {
        for reference: Int64 in [0, 1, 32_767, 32_768, 65_535, 65_536, 1_000_000, -5] {
            for value in 0...Int(UInt16.max) {
                let word = UInt16(value)
                let expected = reference + Int64(Int16(bitPattern: word &- UInt16(truncatingIfNeeded: reference)))
                XCTAssertEqual(SequenceNumberUnwrapper.extend(word, near: reference), expected, "\(word) near \(reference)")
            }
        }
        XCTAssertEqual(TimestampUnwrapper.extend(0x8000_0000, near: 0), -0x8000_0000, "exactly half a range counts as before")
        XCTAssertEqual(TimestampUnwrapper.extend(0x7FFF_FFFF, near: 0), 0x7FFF_FFFF)
        XCTAssertEqual(TimestampUnwrapper.extend(5, near: 0xFFFF_FFFF), 0x1_0000_0005)
    }

    func testTimestampUnwrapperAcrossWrap() {
        var unwrapper = TimestampUnwrapper()
        XCTAssertEqual(unwrapper.unwrap(UInt32.max - 159), 4_294_967_136)
        XCTAssertEqual(unwrapper.unwrap(UInt32.max), 4_294_967_295)
        XCTAssertEqual(unwrapper.unwrap(160), 4_294_967_456)
        XCTAssertEqual(unwrapper.unwrap(UInt32.max - 159), 4_294_967_136, "reordered across the wrap")
        XCTAssertEqual(unwrapper.unwrap(320), 4_294_967_616)
        XCTAssertEqual(unwrapper.highest, 4_294_967_616)
    }
}
