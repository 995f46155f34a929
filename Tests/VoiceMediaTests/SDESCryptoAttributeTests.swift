import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class SDESCryptoAttributeTests: XCTestCase {
    private let rfcKey = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"

    private func assertRejects(_ text: String, _ expected: SDESError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try SDESCryptoAttribute(parsing: text), text, file: file, line: line) {
            XCTAssertEqual($0 as? SDESError, expected, text, file: file, line: line)
        }
    }

    // MARK: RFC 4568 examples

    func testParsesRFC4568Section4Example() throws {
        let attribute = try SDESCryptoAttribute(
            parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|2^20|1:32")
        XCTAssertEqual(attribute.tag, 1)
        XCTAssertEqual(attribute.suite, .aesCM128HmacSHA1_80)
        XCTAssertEqual(
            attribute.keyMaterial.keyAndSalt,
            SRTPTestSupport.bytes("3d2d6e40255e7821426a75667239293f2c2335685c603d265d7b71695051"))
        XCTAssertEqual(attribute.keyMaterial.lifetime, 1 << 20)
        XCTAssertEqual(attribute.keyMaterial.mki, SRTPMasterKeyIdentifier(value: 1, length: 32))
        XCTAssertEqual(attribute.sessionParameters, [])
        XCTAssertEqual(attribute.attributeValue, "1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|2^20|1:32")
    }

    func testParsesOfferLinesWithAndWithoutPrefix() throws {
        let line = "2 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj|2^20|1:4"
        let bare = try SDESCryptoAttribute(parsing: line)
        XCTAssertEqual(try SDESCryptoAttribute(parsing: "crypto:" + line), bare)
        XCTAssertEqual(try SDESCryptoAttribute(parsing: "a=crypto:" + line), bare)
        XCTAssertEqual(bare.tag, 2)
        XCTAssertEqual(bare.suite, .aesCM128HmacSHA1_32)
        XCTAssertEqual(bare.keyMaterial.mki?.length, 4)
        XCTAssertEqual(bare.attributeValue, line)
    }

    func testRFC4568FECOrderExampleIsRejectedAsUnsupported() {
        assertRejects(
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4 FEC_ORDER=FEC_SRTP",
            .unsupportedSessionParameter("FEC_ORDER=FEC_SRTP"))
    }

    func testRFC4568F8ExampleIsAnUnknownSuite() {
        assertRejects(
            "a=crypto:2 F8_128_HMAC_SHA1_80 inline:MTIzNDU2Nzg5QUJDREUwMTIzNDU2Nzg5QUJjZGVm|2^20|1:4;"
                + "inline:QUJjZGVmMTIzNDU2Nzg5QUJDREUwMTIzNDU2Nzg5|2^20|2:4 FEC_ORDER=FEC_SRTP",
            .unknownSuite("F8_128_HMAC_SHA1_80"))
    }

    func testMultipleKeyParametersAreRejected() {
        assertRejects(
            "1 AES_CM_128_HMAC_SHA1_80 inline:MTIzNDU2Nzg5QUJDREUwMTIzNDU2Nzg5QUJjZGVm|2^20|1:4;"
                + "inline:QUJjZGVmMTIzNDU2Nzg5QUJDREUwMTIzNDU2Nzg5|2^20|2:4",
            .multipleKeysUnsupported)
    }

    // MARK: Session parameters

    func testWindowSizeHintAndOptionalParametersArePreserved() throws {
        let text = "7 AEAD_AES_128_GCM inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw== WSH=256 -X_VENDOR=1"
        let attribute = try SDESCryptoAttribute(parsing: text)
        XCTAssertEqual(attribute.sessionParameters, ["WSH=256", "-X_VENDOR=1"])
        XCTAssertEqual(attribute.windowSizeHint, 256)
        XCTAssertEqual(attribute.attributeValue, text)
        XCTAssertNil(try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)").windowSizeHint)
    }

    func testParametersThatWeakenOrChangeProtectionAreUnsupported() {
        for parameter in [
            "UNENCRYPTED_SRTP", "UNENCRYPTED_SRTCP", "UNAUTHENTICATED_SRTP", "KDR=1", "KDR=0",
            "FEC_ORDER=SRTP_FEC", "FEC_KEY=inline:\(rfcKey)",
        ] {
            assertRejects("1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey) \(parameter)", .unsupportedSessionParameter(parameter))
        }
    }

    func testUnknownMandatoryParameterInvalidatesTheAttribute() {
        assertRejects(
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey) dummy_session_params",
            .unknownSessionParameter("dummy_session_params"))
        assertRejects("1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey) WSH=128 wsh=128", .unknownSessionParameter("wsh=128"))
    }

    func testInvalidWindowSizeHints() {
        for parameter in ["WSH=32", "WSH=", "WSH=abc", "WSH=-64", "WSH=9999999999"] {
            assertRejects("1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey) \(parameter)", .invalidSessionParameter(parameter))
        }
    }

    // MARK: Malformed attributes

    func testMalformedAttributes() {
        assertRejects("", .invalidTag)
        assertRejects("a=crypto:", .invalidTag)
        assertRejects("1", .malformedAttribute)
        assertRejects("1 ", .malformedAttribute)
        assertRejects("1 AES_CM_128_HMAC_SHA1_80", .malformedAttribute)
        assertRejects("1 AES_CM_128_HMAC_SHA1_80 ", .invalidKey(.unsupportedKeyMethod))
        assertRejects("x AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)", .invalidTag)
        assertRejects("-1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)", .invalidTag)
        assertRejects("1234567890 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)", .invalidTag)
        assertRejects("1 aes_cm_128_hmac_sha1_80 inline:\(rfcKey)", .unknownSuite("aes_cm_128_hmac_sha1_80"))
        assertRejects("1 AES_CM_128_HMAC_SHA1_80 key:\(rfcKey)", .invalidKey(.unsupportedKeyMethod))
        assertRejects(
            "1 AEAD_AES_128_GCM inline:\(rfcKey)",
            .invalidKey(.wrongLength(suite: .aeadAES128GCM, expected: 28, actual: 30)))
        assertRejects("1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|2^99", .invalidKey(.invalidLifetime))
        assertRejects("1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|1:200", .invalidKey(.invalidMKI))
        assertRejects("1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|", .invalidKey(.malformedKeyParameter))
        assertRejects("1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)\u{0}", .invalidKey(.invalidBase64))
    }

    func testToleratesRepeatedWhitespaceAndTrailingSpace() throws {
        let attribute = try SDESCryptoAttribute(parsing: "1 \t AES_CM_128_HMAC_SHA1_80  inline:\(rfcKey)\tWSH=64 ")
        XCTAssertEqual(attribute.sessionParameters, ["WSH=64"])
        XCTAssertEqual(attribute.attributeValue, "1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey) WSH=64")
    }

    func testMaximumTagRoundTrips() throws {
        let attribute = try SDESCryptoAttribute(
            parsing: "999999999 AES_256_CM_HMAC_SHA1_32 inline:"
                + SRTPKeyMaterial.random(for: .aes256CMHmacSHA1_32).sdesKeyParameter.dropFirst("inline:".count))
        XCTAssertEqual(attribute.tag, SDESCryptoAttribute.maxTag)
    }

    // MARK: Formatting

    func testFormatParseRoundTripForEverySuite() throws {
        for (index, suite) in SRTPSuite.preferredOrder.enumerated() {
            var keys = SRTPKeyMaterial.random(for: suite)
            keys.lifetime = 1 << 31
            let attribute = SDESCryptoAttribute(tag: UInt32(index + 1), keyMaterial: keys, sessionParameters: ["WSH=128"])
            let parsed = try SDESCryptoAttribute(parsing: attribute.attributeValue)
            XCTAssertEqual(parsed, attribute)
            XCTAssertEqual(parsed.keyMaterial, keys)
            XCTAssertTrue(attribute.attributeValue.hasPrefix("\(index + 1) \(suite.sdesName) inline:"))
        }
    }

    func testDescriptionRedactsTheKey() throws {
        let attribute = try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|2^20|1:32 WSH=128")
        XCTAssertFalse(attribute.description.contains(rfcKey))
        XCTAssertFalse(String(reflecting: attribute).contains(rfcKey))
        XCTAssertEqual(attribute.description, "crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<redacted> WSH=128")
    }

    func testParsedKeysDriveAWorkingSession() throws {
        let offer = SDESCryptoAttribute(tag: 1, keyMaterial: .random(for: .aeadAES256GCM))
        let answer = SDESCryptoAttribute(tag: 1, keyMaterial: .random(for: .aeadAES256GCM))
        let offerer = try SRTPSession(
            outbound: offer.keyMaterial,
            inbound: try SDESCryptoAttribute(parsing: answer.attributeValue).keyMaterial)
        let answerer = try SRTPSession(
            outbound: answer.keyMaterial,
            inbound: try SDESCryptoAttribute(parsing: offer.attributeValue).keyMaterial)
        var buffer = [UInt8](repeating: 0x42, count: 12 + 20 + SRTPSession.maxTrailerLength)
        buffer[0] = 0x80
        let plain = Array(buffer[0..<32])
        let protectedLength = try buffer.withUnsafeMutableBytes { try offerer.protectRTP($0, length: 32) }
        let length = try buffer.withUnsafeMutableBytes { try answerer.unprotectRTP($0, length: protectedLength) }
        XCTAssertEqual(Array(buffer[0..<length]), plain)
    }
}
