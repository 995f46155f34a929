import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class AccessTokenBase64URLTests: XCTestCase {
    func testRFC4648Vectors() throws {
        let rows: [(String, String)] = [
            ("", ""), ("Zg", "f"), ("Zm8", "fo"), ("Zm9v", "foo"), ("Zm9vYg", "foob"), ("Zm9vYmE", "fooba"),
            ("Zm9vYmFy", "foobar"),
        ]
        for (encoded, decoded) in rows {
            XCTAssertEqual(try AccessTokenBase64URL.decode(ArraySlice(encoded.utf8)), Array(decoded.utf8), encoded)
        }
    }

    func testURLAlphabet() throws {
        XCTAssertEqual(try AccessTokenBase64URL.decode(ArraySlice("-_8".utf8)), [0xFB, 0xFF])
        XCTAssertEqual(try AccessTokenBase64URL.decode(ArraySlice("AP__".utf8)), [0x00, 0xFF, 0xFF])
    }

    func testMalformed() {
        let rows: [(String, AccessTokenBase64URL.Failure)] = [
            ("Z", .invalidLength), ("Zm9vY", .invalidLength), ("Zm9=", .invalidCharacter(offset: 3)),
            ("Zm+v", .invalidCharacter(offset: 2)), ("Zm/v", .invalidCharacter(offset: 2)),
            ("Z m9", .invalidCharacter(offset: 1)), ("Zé", .invalidCharacter(offset: 1)),
        ]
        for (text, expected) in rows {
            XCTAssertThrowsError(try AccessTokenBase64URL.decode(ArraySlice(text.utf8)), text) { error in
                XCTAssertEqual(error as? AccessTokenBase64URL.Failure, expected, text)
            }
        }
    }
}
