import VoiceSTUN
import XCTest

@testable import VoiceNetwork

/// MESSAGE-INTEGRITY and FINGERPRINT against RFC 5769's test vectors, and what a tampered or
/// malformed message gets.
final class STUNIntegrityTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        text.split(whereSeparator: \.isWhitespace).map { UInt8($0, radix: 16) ?? 0 }
    }

    /// RFC 5769 §2.1: a Binding request with a short-term credential.
    private lazy var sampleRequest = hex("""
        00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
        00 24 00 04 6e 00 01 ff 80 29 00 08 93 2f f9 b1 51 26 3b 36
        00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
        00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
        80 28 00 04 e5 7a 3b cf
        """)
    /// RFC 5769 §2.2: its IPv4 response (192.0.2.1:32853).
    private lazy var sampleIPv4Response = hex("""
        01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 08 00 01 a1 47 e1 12 a6 43
        00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
        80 28 00 04 c0 7d 4c 96
        """)
    /// RFC 5769 §2.3: its IPv6 response.
    private lazy var sampleIPv6Response = hex("""
        01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
        00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
        80 28 00 04 c8 fb 0b 4c
        """)
    /// RFC 5769 §2.4: a request with a long-term credential (no FINGERPRINT).
    private lazy var sampleLongTermRequest = hex("""
        00 01 00 60 21 12 a4 42 78 ad 34 33 c6 ad 72 c0 29 da 41 2e
        00 06 00 12 e3 83 9e e3 83 88 e3 83 aa e3 83 83 e3 82 af e3 82 b9 00 00
        00 15 00 1c 66 2f 2f 34 39 39 6b 39 35 34 64 36 4f 4c 33 34 6f 4c 39 46 53 54 76 79 36 34 73 41
        00 14 00 0b 65 78 61 6d 70 6c 65 2e 6f 72 67 00
        00 08 00 14 f6 70 24 65 6d d6 4a 3e 02 b8 e0 71 2e 85 c9 a2 8c a8 96 66
        """)
    private let shortTermPassword = "VOkJxbRl1RmTxUk/WvJxBt"

    func testTheRFC5769VectorsCheckWithTheirKeys() throws {
        let key = try STUNIntegrityKey.shortTerm(password: shortTermPassword)
        for vector in [sampleRequest, sampleIPv4Response, sampleIPv6Response] {
            XCTAssertEqual(STUNMessage.checkIntegrity(of: vector, key: key), .valid)
            XCTAssertEqual(STUNMessage.checkFingerprint(of: vector), true)
        }
        let wrong = try STUNIntegrityKey.shortTerm(password: "VOkJxbRl1RmTxUk/WvJxBT")
        XCTAssertEqual(STUNMessage.checkIntegrity(of: sampleRequest, key: wrong), .invalid)

        let request = try STUNMessage(parsing: sampleRequest)
        XCTAssertEqual(request.attribute(STUNMessage.Attribute.username).map { String(decoding: $0.value, as: UTF8.self) }, "evtj:h6vY")
        XCTAssertEqual(request.attribute(STUNMessage.Attribute.priority)?.value, [0x6e, 0x00, 0x01, 0xff])
        XCTAssertEqual(request.attribute(STUNMessage.Attribute.iceControlled)?.value, [0x93, 0x2f, 0xf9, 0xb1, 0x51, 0x26, 0x3b, 0x36])
    }

    func testTheLongTermKeyIsSASLpreppedAndChecksTheRFC5769Request() throws {
        // The RFC's password is "TheMatrIX" written with a soft hyphen, a feminine ordinal and
        // the Roman numeral nine: SASLprep maps them back.
        XCTAssertEqual(try SASLprep.prepare("The\u{00AD}M\u{00AA}tr\u{2168}"), "TheMatrIX")
        let key = try STUNIntegrityKey.longTerm(username: "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}", realm: "example.org", password: "The\u{00AD}M\u{00AA}tr\u{2168}")
        XCTAssertEqual(key, try STUNIntegrityKey.longTerm(username: "マトリックス", realm: "example.org", password: "TheMatrIX"))
        XCTAssertEqual(STUNMessage.checkIntegrity(of: sampleLongTermRequest, key: key), .valid)
        XCTAssertNil(STUNMessage.checkFingerprint(of: sampleLongTermRequest), "it has none")
        let lowercase = try STUNIntegrityKey.longTerm(username: "マトリックス", realm: "example.org", password: "thematrix")
        XCTAssertEqual(STUNMessage.checkIntegrity(of: sampleLongTermRequest, key: lowercase), .invalid)
        XCTAssertThrowsError(try SASLprep.prepare("pass\u{0007}word")) { XCTAssertEqual($0 as? STUNError, .badCredentials) }
        XCTAssertThrowsError(try SASLprep.prepare("\u{E000}")) { XCTAssertEqual($0 as? STUNError, .badCredentials) }
        XCTAssertEqual(try SASLprep.prepare("a\u{00A0}b"), "a b", "a non-ASCII space is a space")
    }

    func testSerializingWithIntegrityAndFingerprintReproducesTheRFC5769Request() throws {
        let parsed = try STUNMessage(parsing: sampleRequest)
        var unsigned = parsed
        unsigned.attributes.removeAll { $0.type == STUNMessage.Attribute.messageIntegrity || $0.type == STUNMessage.Attribute.fingerprint }
        let key = try STUNIntegrityKey.shortTerm(password: shortTermPassword)
        let bytes = unsigned.serialized(integrity: key, fingerprint: true)
        // The RFC pads SOFTWARE and USERNAME with spaces, we pad with zeros: the same attributes
        // but another HMAC input, so compare what a receiver checks, and the length.
        XCTAssertEqual(bytes.count, sampleRequest.count)
        XCTAssertEqual(STUNMessage.checkIntegrity(of: bytes, key: key), .valid)
        XCTAssertEqual(STUNMessage.checkFingerprint(of: bytes), true)
        XCTAssertEqual(Array(try STUNMessage(parsing: bytes).attributes.prefix(4)), unsigned.attributes, "padding is not part of a value")

        // The long-term vector's attributes need no padding bytes other than zeros: byte for byte.
        var longTerm = try STUNMessage(parsing: sampleLongTermRequest)
        longTerm.attributes.removeAll { $0.type == STUNMessage.Attribute.messageIntegrity }
        let longTermKey = try STUNIntegrityKey.longTerm(username: "マトリックス", realm: "example.org", password: "TheMatrIX")
        XCTAssertEqual(longTerm.serialized(integrity: longTermKey, fingerprint: false), sampleLongTermRequest)
    }

    func testTamperingIsCaughtAndAttributesAfterTheIntegrityAreIgnored() throws {
        let key = try STUNIntegrityKey.shortTerm(password: shortTermPassword)
        for index in [1, 3, 9, 25, 60, 79, 85] {
            var tampered = sampleRequest
            tampered[index] ^= 0x01
            XCTAssertNotEqual(STUNMessage.checkIntegrity(of: tampered, key: key), .valid, "byte \(index)")
            XCTAssertNotEqual(STUNMessage.checkFingerprint(of: tampered), true, "byte \(index)")
        }
        // An attribute slipped in after MESSAGE-INTEGRITY is not covered: parsed away, and the
        // integrity still holds for what it covers.
        var message = STUNMessage(type: .bindingRequest, transactionID: Array(1...12))
        message.attributes = [STUNMessage.Attribute(type: STUNMessage.Attribute.username, value: Array("a:b".utf8))]
        var bytes = message.serialized(integrity: key, fingerprint: false)
        bytes += [0x80, 0x22, 0x00, 0x04, 0x65, 0x76, 0x69, 0x6c]
        bytes[3] += 8
        XCTAssertEqual(STUNMessage.checkIntegrity(of: bytes, key: key), .valid)
        XCTAssertEqual(try STUNMessage(parsing: bytes).attributes.map(\.type), [STUNMessage.Attribute.username, STUNMessage.Attribute.messageIntegrity])
    }

    func testMalformedBytesAreNeverValid() throws {
        let key = try STUNIntegrityKey.shortTerm(password: shortTermPassword)
        for bytes in [[], Array(sampleRequest.prefix(19)), Array(sampleRequest.dropLast()), sampleRequest + [0, 0, 0, 0], [UInt8](repeating: 0xFF, count: 40)] {
            XCTAssertEqual(STUNMessage.checkIntegrity(of: bytes, key: key), .invalid)
            XCTAssertEqual(STUNMessage.checkFingerprint(of: bytes), false)
        }
        // A MESSAGE-INTEGRITY whose value is cut short.
        var short = Array(sampleLongTermRequest.prefix(sampleLongTermRequest.count - 8))
        short[3] -= 8
        short[short.count - 13] = 0x0C  // its length: 12 bytes, not 20
        XCTAssertEqual(STUNMessage.checkIntegrity(of: short, key: key), .invalid)
    }

    func testCRC32() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926, "the standard check value")
        XCTAssertEqual(CRC32.checksum([]), 0)
    }
}
