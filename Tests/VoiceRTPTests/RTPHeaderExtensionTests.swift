import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class RTPHeaderExtensionTests: XCTestCase {
    private func withSlice<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let padded: [UInt8] = [0x55] + bytes
        return try padded[1...].withUnsafeBytes(body)
    }

    // RFC 8285 §4.2 example: one-byte headers, elements of 1, 2 and 4 data bytes with two
    // padding bytes before the last (IDs 1, 2, 3 chosen for the figure's unnamed IDs).
    private let oneByteExample: [UInt8] = [
        0x10, 0xAA, 0x21, 0xBB,
        0xBB, 0x00, 0x00, 0x33,
        0xCC, 0xCC, 0xCC, 0xCC,
    ]

    // RFC 8285 §4.3 example: two-byte headers, a zero-length element, a 1-byte element,
    // one padding byte, then a 4-byte element.
    private let twoByteExample: [UInt8] = [
        0x01, 0x00, 0x02, 0x01,
        0xAA, 0x00, 0x03, 0x04,
        0xBB, 0xBB, 0xBB, 0xBB,
    ]

    func testOneByteExampleFromRFC8285() throws {
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: oneByteExample)
        XCTAssertEqual(ext.elementForm, .oneByte)
        XCTAssertEqual(
            try ext.elements(),
            [
                RTPHeaderExtensionElement(id: 1, data: [0xAA]),
                RTPHeaderExtensionElement(id: 2, data: [0xBB, 0xBB]),
                RTPHeaderExtensionElement(id: 3, data: [0xCC, 0xCC, 0xCC, 0xCC]),
            ])
    }

    func testTwoByteExampleFromRFC8285() throws {
        let ext = RTPHeaderExtension(profile: 0x1000, data: twoByteExample)
        XCTAssertEqual(ext.elementForm, .twoByte)
        XCTAssertEqual(
            try ext.elements(),
            [
                RTPHeaderExtensionElement(id: 1, data: []),
                RTPHeaderExtensionElement(id: 2, data: [0xAA]),
                RTPHeaderExtensionElement(id: 3, data: [0xBB, 0xBB, 0xBB, 0xBB]),
            ])
    }

    func testElementsThroughPacketViewWithoutAllocation() throws {
        let packet: [UInt8] = [0x90, 0x60, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0x00, 0x03] + oneByteExample
        try withSlice(packet) { raw in
            let view = try RTPPacketView(parsing: raw)
            guard var reader = view.extensionElements else { return XCTFail("expected RFC 8285 elements") }
            var ids: [UInt8] = []
            var lengths: [Int] = []
            while let element = try reader.next() {
                ids.append(element.id)
                lengths.append(element.data.count)
            }
            XCTAssertEqual(ids, [1, 2, 3])
            XCTAssertEqual(lengths, [1, 2, 4])
            XCTAssertEqual(view.payload.count, 0)
        }
    }

    func testBuildersRoundTripAndPad() throws {
        let elements = [
            RTPHeaderExtensionElement(id: 1, data: [0x01]),
            RTPHeaderExtensionElement(id: 14, data: Array(repeating: 7, count: 16)),
        ]
        let one = try RTPHeaderExtension.oneByte(elements)
        XCTAssertEqual(one.profile, 0xBEDE)
        XCTAssertEqual(one.data.count % 4, 0)
        XCTAssertEqual(one.data.count, 20)
        XCTAssertEqual(try one.elements(), elements)

        let twoElements = [
            RTPHeaderExtensionElement(id: 200, data: Array(repeating: 9, count: 255)),
            RTPHeaderExtensionElement(id: 15, data: []),
        ]
        let two = try RTPHeaderExtension.twoByte(twoElements, appBits: 5)
        XCTAssertEqual(two.profile, 0x1005)
        XCTAssertEqual(two.data.count % 4, 0)
        XCTAssertEqual(try two.elements(), twoElements)
    }

    func testBuildersRejectInvalidElements() {
        XCTAssertThrowsError(try RTPHeaderExtension.oneByte([RTPHeaderExtensionElement(id: 0, data: [1])])) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
        XCTAssertThrowsError(try RTPHeaderExtension.oneByte([RTPHeaderExtensionElement(id: 15, data: [1])])) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
        XCTAssertThrowsError(try RTPHeaderExtension.oneByte([RTPHeaderExtensionElement(id: 2, data: [])])) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
        XCTAssertThrowsError(try RTPHeaderExtension.oneByte([RTPHeaderExtensionElement(id: 2, data: Array(repeating: 0, count: 17))])) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
        XCTAssertThrowsError(try RTPHeaderExtension.twoByte([RTPHeaderExtensionElement(id: 0, data: [])])) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
        XCTAssertThrowsError(try RTPHeaderExtension.twoByte([], appBits: 16)) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
    }

    func testMalformedElementsThrow() {
        // One-byte element claims 4 bytes but only 2 follow.
        XCTAssertThrowsError(try RTPHeaderExtension(profile: 0xBEDE, data: [0x13, 0xAA, 0xBB, 0x00]).elements()) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
        // Two-byte element claims 200 bytes.
        XCTAssertThrowsError(try RTPHeaderExtension(profile: 0x1000, data: [0x05, 200, 0xAA, 0xBB]).elements()) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
        // Two-byte element header cut after the ID.
        XCTAssertThrowsError(try RTPHeaderExtension(profile: 0x1000, data: [0x00, 0x00, 0x00, 0x05]).elements()) {
            XCTAssertEqual($0 as? RTPError, .badExtensionElement)
        }
    }

    func testReservedIDFifteenStopsProcessing() throws {
        // RFC 8285 §4.2: ID 15 ends processing; its length is ignored.
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: [0x10, 0xAA, 0xFF, 0x20, 0xBB, 0x00, 0x00, 0x00])
        XCTAssertEqual(try ext.elements(), [RTPHeaderExtensionElement(id: 1, data: [0xAA])])
    }

    func testNonRFC8285ProfileHasNoElements() throws {
        XCTAssertNil(try RTPHeaderExtension(profile: 0x1234, data: [1, 2, 3, 4]).elements())
    }
}
