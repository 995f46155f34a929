import VoiceBytes
import XCTest

/// Base64 (RFC 4648) as SDES keys (standard alphabet, strict) and access tokens (URL-safe, no
/// padding) read it.
final class Base64Tests: XCTestCase {
    private func token(_ text: String) throws(Base64.Failure) -> [UInt8] {
        try Base64.decode(Array(text.utf8), alphabet: .url, allowsPadding: false, requiresCanonical: false)
    }

    private func key(_ text: String) throws(Base64.Failure) -> [UInt8] {
        try Base64.decode(Array(text.utf8), alphabet: .standard, allowsPadding: true, requiresCanonical: true)
    }

    /// RFC 4648 §10's test vectors, both alphabets, padded and not.
    func testRFC4648Vectors() throws {
        let rows: [(String, String, String)] = [
            ("", "", ""), ("Zg", "Zg==", "f"), ("Zm8", "Zm8=", "fo"), ("Zm9v", "Zm9v", "foo"), ("Zm9vYg", "Zm9vYg==", "foob"),
            ("Zm9vYmE", "Zm9vYmE=", "fooba"), ("Zm9vYmFy", "Zm9vYmFy", "foobar"),
        ]
        for (bare, padded, decoded) in rows {
            XCTAssertEqual(try token(bare), Array(decoded.utf8), bare)
            XCTAssertEqual(try key(padded), Array(decoded.utf8), padded)
            XCTAssertEqual(try key(bare), Array(decoded.utf8), "padding may be left out: \(bare)")
            XCTAssertEqual(Base64.encode(Array(decoded.utf8)), padded)
            XCTAssertEqual(Base64.encode(Array(decoded.utf8), alphabet: .url, padded: false), bare)
        }
    }

    func testTheTwoAlphabets() throws {
        XCTAssertEqual(try token("-_8"), [0xFB, 0xFF])
        XCTAssertEqual(try token("AP__"), [0x00, 0xFF, 0xFF])
        XCTAssertEqual(try key("+/8="), [0xFB, 0xFF])
        XCTAssertEqual(Base64.encode([0xFB, 0xFF]), "+/8=")
        XCTAssertEqual(Base64.encode([0xFB, 0xFF], alphabet: .url, padded: false), "-_8")
    }

    func testMalformedTokens() {
        let rows: [(String, Base64.Failure)] = [
            ("Z", .invalidLength), ("Zm9vY", .invalidLength), ("Zm9=", .invalidCharacter(offset: 3)),
            ("Zm+v", .invalidCharacter(offset: 2)), ("Zm/v", .invalidCharacter(offset: 2)),
            ("Z m9", .invalidCharacter(offset: 1)), ("Zé", .invalidCharacter(offset: 1)),
        ]
        for (text, expected) in rows {
            XCTAssertThrowsError(try token(text), text) { XCTAssertEqual($0 as? Base64.Failure, expected, text) }
        }
    }

    func testMalformedKeys() {
        let rows: [(String, Base64.Failure)] = [
            ("Zg=", .invalidPadding), ("Zg===", .invalidPadding), ("Zm9v=", .invalidPadding), ("Zg==Zg", .invalidPadding),
            ("Zh==", .nonCanonical), ("Z", .invalidLength), ("Zm-v", .invalidCharacter(offset: 2)),
        ]
        for (text, expected) in rows {
            XCTAssertThrowsError(try key(text), text) { XCTAssertEqual($0 as? Base64.Failure, expected, text) }
        }
    }
}
