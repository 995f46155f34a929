import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class SRTPKeyMaterialTests: XCTestCase {
    private let rfcKey = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"
    private let rfcKeyBytes = SRTPTestSupport.bytes("3d2d6e40255e7821426a75667239293f2c2335685c603d265d7b71695051")

    private func assertRejects(
        _ text: String, _ expected: SRTPKeyMaterialError,
        suite: SRTPSuite = .aesCM128HmacSHA1_80, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try SRTPKeyMaterial(sdesKeyParameter: text, suite: suite), text, file: file, line: line) {
            XCTAssertEqual($0 as? SRTPKeyMaterialError, expected, text, file: file, line: line)
        }
    }

    // MARK: Construction

    func testRandomMaterialHasTheSuiteLengthsAndDiffers() {
        for suite in SRTPSuite.allCases {
            let a = SRTPKeyMaterial.random(for: suite)
            let b = SRTPKeyMaterial.random(for: suite)
            XCTAssertEqual(a.keyAndSalt.count, suite.keyMaterialLength)
            XCTAssertEqual(a.masterKey.count, suite.masterKeyLength)
            XCTAssertEqual(a.masterSalt.count, suite.masterSaltLength)
            XCTAssertEqual(a.masterKey + a.masterSalt, a.keyAndSalt)
            XCTAssertNotEqual(a, b, "two draws from the system generator must differ")
            XCTAssertNil(a.lifetime)
            XCTAssertNil(a.mki)
        }
    }

    func testWrongLengthsAreRejected() {
        XCTAssertThrowsError(try SRTPKeyMaterial(suite: .aesCM128HmacSHA1_80, keyAndSalt: [UInt8](repeating: 1, count: 29))) {
            XCTAssertEqual($0 as? SRTPKeyMaterialError, .wrongLength(suite: .aesCM128HmacSHA1_80, expected: 30, actual: 29))
        }
        XCTAssertThrowsError(try SRTPKeyMaterial(suite: .aeadAES128GCM, keyAndSalt: [UInt8](repeating: 1, count: 30))) {
            XCTAssertEqual($0 as? SRTPKeyMaterialError, .wrongLength(suite: .aeadAES128GCM, expected: 28, actual: 30))
        }
        // Right total, wrong split.
        XCTAssertThrowsError(
            try SRTPKeyMaterial(
                suite: .aesCM128HmacSHA1_80,
                masterKey: [UInt8](repeating: 1, count: 14),
                masterSalt: [UInt8](repeating: 2, count: 16)))
        let split = try? SRTPKeyMaterial(
            suite: .aeadAES256GCM, masterKey: [UInt8](repeating: 1, count: 32),
            masterSalt: [UInt8](repeating: 2, count: 12))
        XCTAssertEqual(split?.masterKey, [UInt8](repeating: 1, count: 32))
        XCTAssertEqual(split?.masterSalt, [UInt8](repeating: 2, count: 12))
    }

    func testKeyNeverAppearsInPrintedForms() throws {
        let material = try SRTPKeyMaterial(sdesKeyParameter: "inline:\(rfcKey)|2^20|1:4", suite: .aesCM128HmacSHA1_80)
        var dumped = ""
        dump(material, to: &dumped)
        for text in [
            material.description, material.debugDescription, String(describing: material),
            String(reflecting: material), "\(material)", dumped,
        ] {
            XCTAssertFalse(text.contains(rfcKey), text)
            XCTAssertFalse(text.lowercased().contains("3d2d6e40"), text)
            XCTAssertFalse(text.contains("61"), "no key byte values (0x3d = 61) in: \(text)")
        }
        XCTAssertTrue(material.description.contains("AES_CM_128_HMAC_SHA1_80"))
    }

    func testEqualityComparesEveryField() throws {
        let a = try SRTPKeyMaterial(suite: .aesCM128HmacSHA1_80, keyAndSalt: rfcKeyBytes)
        var b = a
        XCTAssertEqual(a, b)
        b.lifetime = 1 << 20
        XCTAssertNotEqual(a, b)
        var flipped = rfcKeyBytes
        flipped[29] ^= 1
        XCTAssertNotEqual(a, try SRTPKeyMaterial(suite: .aesCM128HmacSHA1_80, keyAndSalt: flipped))
        XCTAssertNotEqual(a, try SRTPKeyMaterial(suite: .aesCM128HmacSHA1_32, keyAndSalt: rfcKeyBytes))
    }

    // MARK: SDES inline parsing (RFC 4568 §6.1 examples)

    func testParsesRFC4568KeyWithLifetimeAndMKI() throws {
        let material = try SRTPKeyMaterial(sdesKeyParameter: "inline:\(rfcKey)|2^20|1:32", suite: .aesCM128HmacSHA1_80)
        XCTAssertEqual(material.keyAndSalt, rfcKeyBytes)
        XCTAssertEqual(material.lifetime, 1_048_576)
        XCTAssertEqual(material.mki, SRTPMasterKeyIdentifier(value: 1, length: 32))
        XCTAssertEqual(material.sdesKeyParameter, "inline:\(rfcKey)|2^20|1:32")
    }

    func testParsesRFC4568KeyWithMKIButNoLifetime() throws {
        let material = try SRTPKeyMaterial(
            sdesKeyParameter: "inline:YUJDZGVmZ2hpSktMbW9QUXJzVHVWd3l6MTIzNDU2|1066:4",
            suite: .aesCM128HmacSHA1_80)
        XCTAssertEqual(material.keyAndSalt, Array("aBCdefghiJKLmoPQrsTuVwyz123456".utf8))
        XCTAssertNil(material.lifetime)
        XCTAssertEqual(material.mki?.value, 1066)
        XCTAssertEqual(material.mki?.length, 4)
        XCTAssertEqual(material.mki?.bytes, [0, 0, 0x04, 0x2A])
        XCTAssertEqual(material.sdesKeyParameter, "inline:YUJDZGVmZ2hpSktMbW9QUXJzVHVWd3l6MTIzNDU2|1066:4")
    }

    func testLifetimeForms() throws {
        let decimalPowerOfTwo = try SRTPKeyMaterial(sdesKeyParameter: "inline:\(rfcKey)|1048576", suite: .aesCM128HmacSHA1_80)
        XCTAssertEqual(decimalPowerOfTwo.lifetime, 1 << 20)
        XCTAssertEqual(decimalPowerOfTwo.sdesKeyParameter, "inline:\(rfcKey)|2^20")
        let decimal = try SRTPKeyMaterial(sdesKeyParameter: "inline:\(rfcKey)|1000", suite: .aesCM128HmacSHA1_80)
        XCTAssertEqual(decimal.lifetime, 1000)
        XCTAssertEqual(decimal.sdesKeyParameter, "inline:\(rfcKey)|1000")
        let maximum = try SRTPKeyMaterial(sdesKeyParameter: "inline:\(rfcKey)|2^48", suite: .aesCM128HmacSHA1_80)
        XCTAssertEqual(maximum.lifetime, SRTPKeyMaterial.maxLifetime)
    }

    func testFormatParseRoundTripForEverySuite() throws {
        for suite in SRTPSuite.allCases {
            var material = SRTPKeyMaterial.random(for: suite)
            XCTAssertEqual(try SRTPKeyMaterial(sdesKeyParameter: material.sdesKeyParameter, suite: suite), material)
            material.lifetime = 1 << 31
            material.mki = SRTPMasterKeyIdentifier(value: 255, length: 1)
            let text = material.sdesKeyParameter
            XCTAssertTrue(text.hasSuffix("|2^31|255:1"), text)
            XCTAssertEqual(try SRTPKeyMaterial(sdesKeyParameter: text, suite: suite), material)
        }
    }

    // MARK: Malformed inline strings

    func testRejectsWrongKeyMethod() {
        assertRejects(rfcKey, .unsupportedKeyMethod)
        assertRejects("uri:\(rfcKey)", .unsupportedKeyMethod)
        assertRejects("INLINE:\(rfcKey)", .unsupportedKeyMethod)
        assertRejects("", .unsupportedKeyMethod)
    }

    func testRejectsBadBase64() {
        assertRejects("inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVB!", .invalidBase64)
        assertRejects("inline:PS1uQCVe=eCFCanVmcjkpPywjNWhcYD0mXXtxaVBR", .invalidBase64)
        assertRejects("inline:\(rfcKey)=", .invalidBase64)
        // 28 bytes encode to ...Gw==; "Gx==" carries non-zero bits past the last byte.
        assertRejects("inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGx==", .invalidBase64, suite: .aeadAES128GCM)
        assertRejects("inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw=", .invalidBase64, suite: .aeadAES128GCM)
        assertRejects("inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaG", .invalidBase64, suite: .aeadAES128GCM)
    }

    func testAcceptsPaddedAndUnpaddedBase64() throws {
        let padded = try SRTPKeyMaterial(sdesKeyParameter: "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==", suite: .aeadAES128GCM)
        let unpadded = try SRTPKeyMaterial(sdesKeyParameter: "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw", suite: .aeadAES128GCM)
        XCTAssertEqual(padded.keyAndSalt, Array(0..<28))
        XCTAssertEqual(padded, unpadded)
        XCTAssertEqual(unpadded.sdesKeyParameter, "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==")
    }

    func testRejectsKeysThatLieAboutTheirLength() {
        // The last group dropped: 27 bytes. (Dropping one character leaves non-zero spare bits: bad base64.)
        assertRejects("inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtx", .wrongLength(suite: .aesCM128HmacSHA1_80, expected: 30, actual: 27))
        assertRejects("inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVB", .invalidBase64)
        // 31 bytes: one too many.
        assertRejects("inline:\(rfcKey)AA", .wrongLength(suite: .aesCM128HmacSHA1_80, expected: 30, actual: 31))
        assertRejects("inline:", .wrongLength(suite: .aesCM128HmacSHA1_80, expected: 30, actual: 0))
        assertRejects("inline:\(rfcKey)", .wrongLength(suite: .aes256CMHmacSHA1_80, expected: 46, actual: 30), suite: .aes256CMHmacSHA1_80)
        assertRejects("inline:\(rfcKey)", .wrongLength(suite: .aeadAES128GCM, expected: 28, actual: 30), suite: .aeadAES128GCM)
    }

    func testRejectsBadLifetimes() {
        for lifetime in ["2^", "2^49", "2^x", "2^-1", "2^100", "0", "281474976710657", "99999999999999999999999", "1e6", "-5"] {
            assertRejects("inline:\(rfcKey)|\(lifetime)", .invalidLifetime)
        }
    }

    func testRejectsMKIsThatCannotBeHonoured() {
        for mki in ["1:0", "1:129", "256:1", "65536:2", ":4", "1:", "1:4:5", "a:4", "1:1000", "18446744073709551616:16"] {
            assertRejects("inline:\(rfcKey)|2^20|\(mki)", .invalidMKI)
        }
    }

    func testRejectsMisplacedOrExtraFields() {
        for suffix in ["|2^20|1:4|x", "|1:4|2^20", "||", "|", "|2^20|2^20", "|1:4|2:4", "|2^20|", " ", ";inline:\(rfcKey)"] {
            assertRejects("inline:\(rfcKey)\(suffix)", .malformedKeyParameter)
        }
    }

    // MARK: MKI

    func testMasterKeyIdentifierBoundsAndBytes() {
        XCTAssertNil(SRTPMasterKeyIdentifier(value: 0, length: 0))
        XCTAssertNil(SRTPMasterKeyIdentifier(value: 0, length: 129))
        XCTAssertNil(SRTPMasterKeyIdentifier(value: 0x1_0000, length: 2))
        XCTAssertEqual(SRTPMasterKeyIdentifier(value: 0xFFFF, length: 2)?.bytes, [0xFF, 0xFF])
        XCTAssertEqual(SRTPMasterKeyIdentifier(value: .max, length: 8)?.bytes, [UInt8](repeating: 0xFF, count: 8))
        let wide = SRTPMasterKeyIdentifier(value: 0x0102, length: 128)
        XCTAssertEqual(wide?.bytes.count, 128)
        XCTAssertEqual(wide?.bytes.suffix(2), [0x01, 0x02])
        XCTAssertEqual(wide?.bytes.prefix(126).allSatisfy { $0 == 0 }, true)
        XCTAssertEqual(wide?.description, "258:128")
    }
}
