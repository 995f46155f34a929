import VoiceBytes
import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

final class ByteReaderTests: XCTestCase {
    func testReadsBigEndianFromSliceNotStartingAtZero() throws {
        let bytes: [UInt8] = [0xFF, 0xFF, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE]
        let slice = bytes[2...]
        try slice.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            XCTAssertEqual(try r.readUInt16(), 0x1234)
            XCTAssertEqual(try r.readUInt24(), 0x56789A)
            XCTAssertEqual(r.remaining, 2)
            XCTAssertThrowsError(try r.readUInt32()) { error in
                XCTAssertEqual(error as? ByteReader.Error, .truncated(needed: 4, remaining: 2))
            }
            XCTAssertEqual(r.offset, 5, "a failed read must not move the cursor")
            XCTAssertEqual(Array(try r.readBytes(2)), [0xBC, 0xDE])
            XCTAssertTrue(r.isAtEnd)
        }
    }

    func testWriterRoundTripAndOverflow() throws {
        var storage = [UInt8](repeating: 0, count: 7)
        try storage.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            try w.write(UInt16(0xBEEF))
            try w.write(UInt32(0x01020304))
            XCTAssertThrowsError(try w.write(UInt16(1)))
            try w.write(UInt8(9))
            XCTAssertEqual(w.available, 0)
        }
        XCTAssertEqual(storage, [0xBE, 0xEF, 1, 2, 3, 4, 9])
    }
}
