import CLibSRTP
import CVoiceShims
import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

/// Hex helpers and packet buffers shared by the SRTP and SDES test files.
enum SRTPTestSupport {
    /// Bytes from hex text; whitespace is ignored. Returns an empty array on bad input so the
    /// comparison it feeds fails instead of crashing.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace }.map { Character($0) }
        guard digits.count % 2 == 0 else { return [] }
        var out: [UInt8] = []
        var i = 0
        while i < digits.count {
            guard let byte = UInt8(String(digits[i...i + 1]), radix: 16) else { return [] }
            out.append(byte)
            i += 2
        }
        return out
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// Known-answer tests: RFC 3711 Appendix B (AES-CM keystream and key derivation, through
/// libsrtp's own AES-ICM cipher) and libsrtp's published reference packets (srtp_driver.c).
final class SRTPKnownAnswerTests: XCTestCase {
    override func setUpWithError() throws {
        try SRTPLibrary.initialize()
    }

    /// Runs libsrtp's AES-128 ICM cipher keyed with `key || salt` from IV `iv`, over zeros:
    /// the result is the raw keystream.
    private func aesCounterModeKeystream(key: [UInt8], salt: [UInt8], iv: [UInt8], count: Int) throws -> [UInt8] {
        var cipher: UnsafeMutablePointer<srtp_cipher_t>?
        let keyAndSalt = key + salt
        try SRTPError.check(
            voice_srtp_cipher_alloc(
                srtp_cipher_type_id_t(SRTP_AES_ICM_128), &cipher, Int32(keyAndSalt.count), 0))
        guard let cipher else { throw SRTPError.allocFail }
        defer { srtp_cipher_dealloc(cipher) }
        try SRTPError.check(srtp_cipher_init(cipher, keyAndSalt))
        var ivBytes = iv
        try SRTPError.check(srtp_cipher_set_iv(cipher, &ivBytes, Int32(srtp_direction_encrypt.rawValue)))
        var stream = [UInt8](repeating: 0, count: count)
        var length = UInt32(count)
        try SRTPError.check(srtp_cipher_encrypt(cipher, &stream, &length))
        XCTAssertEqual(Int(length), count)
        return stream
    }

    /// RFC 3711 §4.3.3 key derivation with kdr = 0: AES-CM keystream under the master key, from
    /// IV = (master salt XOR label << 48) * 2^16. libsrtp's ICM cipher adds the salt to the IV
    /// itself, so the IV passed here carries only the label, at octet 7.
    private func deriveSessionKey(masterKey: [UInt8], masterSalt: [UInt8], label: UInt8, length: Int) throws -> [UInt8] {
        var iv = [UInt8](repeating: 0, count: 16)
        iv[7] = label
        return try aesCounterModeKeystream(key: masterKey, salt: masterSalt, iv: iv, count: length)
    }

    // MARK: RFC 3711 B.2

    func testRFC3711B2AESCounterModeKeystream() throws {
        let sessionKey = SRTPTestSupport.bytes("2B7E151628AED2A6ABF7158809CF4F3C")
        let sessionSalt = SRTPTestSupport.bytes("F0F1F2F3F4F5F6F7F8F9FAFBFCFD")
        // Rollover counter, sequence number and SSRC are zero: the IV is the shifted salt alone.
        let keystream = try aesCounterModeKeystream(
            key: sessionKey, salt: sessionSalt, iv: [UInt8](repeating: 0, count: 16), count: 1_044_512)
        XCTAssertEqual(keystream.count, 65282 * 16)

        let expected: [(block: Int, hex: String)] = [
            (0x0000, "E03EAD0935C95E80E166B16DD92B4EB4"),
            (0x0001, "D23513162B02D0F72A43A2FE4A5F97AB"),
            (0x0002, "41E95B3BB0A2E8DD477901E4FCA894C0"),
            (0xFEFF, "EC8CDF7398607CB0F2D21675EA9EA1E4"),
            (0xFF00, "362B7C3C6773516318A077D7FC5073AE"),
            (0xFF01, "6A2CC3787889374FBEB4C81B17BA6C44"),
        ]
        for (block, hex) in expected {
            XCTAssertEqual(
                Array(keystream[block * 16..<block * 16 + 16]), SRTPTestSupport.bytes(hex),
                "keystream block \(String(block, radix: 16))")
        }
    }

    // MARK: RFC 3711 B.3

    func testRFC3711B3KeyDerivation() throws {
        let masterKey = SRTPTestSupport.bytes("E1F97A0D3E018BE0D64FA32C06DE4139")
        let masterSalt = SRTPTestSupport.bytes("0EC675AD498AFEEBB6960B3AABE6")

        XCTAssertEqual(
            try deriveSessionKey(masterKey: masterKey, masterSalt: masterSalt, label: 0x00, length: 16),
            SRTPTestSupport.bytes("C61E7A93744F39EE10734AFE3FF7A087"), "cipher key")
        XCTAssertEqual(
            try deriveSessionKey(masterKey: masterKey, masterSalt: masterSalt, label: 0x02, length: 14),
            SRTPTestSupport.bytes("30CBBC08863D8C85D49DB34A9AE1"), "cipher salt")
        XCTAssertEqual(
            try deriveSessionKey(masterKey: masterKey, masterSalt: masterSalt, label: 0x01, length: 94),
            SRTPTestSupport.bytes(
                """
                CEBE321F6FF7716B6FD4AB49AF256A15 6D38BAA48F0A0ACF3C34E2359E6CDBCE
                E049646C43D9327AD175578EF7227098 6371C10C9A369AC2F94A8C5FBCDDDC25
                6D6E919A48B610EF17C2041E47403576 6B68642C59BBFC2F34DB60DBDFB2
                """), "auth key")
    }

    // MARK: libsrtp reference packets (test/srtp_driver.c: srtp_validate, srtp_validate_gcm)

    private static let rtpPlaintext = SRTPTestSupport.bytes("800f1234decafbadcafebabe abababababababababababababababab")
    private static let rtcpPlaintext = SRTPTestSupport.bytes("81c8000bcafebabe abababababababababababababababab")

    private func checkReferencePackets(
        keys: SRTPKeyMaterial, srtp: String, srtcp: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let expectedSRTP = SRTPTestSupport.bytes(srtp)
        let expectedSRTCP = SRTPTestSupport.bytes(srtcp)
        let sender = try SRTPSession(outbound: keys, inbound: keys)

        var buffer = [UInt8](repeating: 0, count: 64)
        buffer.replaceSubrange(0..<Self.rtpPlaintext.count, with: Self.rtpPlaintext)
        let srtpLength = try buffer.withUnsafeMutableBytes { try sender.protectRTP($0, length: Self.rtpPlaintext.count) }
        XCTAssertEqual(SRTPTestSupport.hex(buffer[0..<srtpLength]), SRTPTestSupport.hex(expectedSRTP), file: file, line: line)

        buffer = [UInt8](repeating: 0, count: 64)
        buffer.replaceSubrange(0..<Self.rtcpPlaintext.count, with: Self.rtcpPlaintext)
        let srtcpLength = try buffer.withUnsafeMutableBytes { try sender.protectRTCP($0, length: Self.rtcpPlaintext.count) }
        XCTAssertEqual(SRTPTestSupport.hex(buffer[0..<srtcpLength]), SRTPTestSupport.hex(expectedSRTCP), file: file, line: line)

        let receiver = try SRTPSession(outbound: keys, inbound: keys)
        var inbound = expectedSRTP
        let rtpLength = try inbound.withUnsafeMutableBytes { try receiver.unprotectRTP($0, length: expectedSRTP.count) }
        XCTAssertEqual(Array(inbound[0..<rtpLength]), Self.rtpPlaintext, file: file, line: line)
        inbound = expectedSRTCP
        let rtcpLength = try inbound.withUnsafeMutableBytes { try receiver.unprotectRTCP($0, length: expectedSRTCP.count) }
        XCTAssertEqual(Array(inbound[0..<rtcpLength]), Self.rtcpPlaintext, file: file, line: line)
        XCTAssertEqual(receiver.stats.rtpPacketsUnprotected, 1, file: file, line: line)
        XCTAssertEqual(receiver.stats.rtcpPacketsUnprotected, 1, file: file, line: line)
    }

    func testLibSRTPReferencePacketAESCM128HmacSHA1_80() throws {
        let keys = try SRTPKeyMaterial(
            suite: .aesCM128HmacSHA1_80,
            keyAndSalt: SRTPTestSupport.bytes("e1f97a0d3e018be0d64fa32c06de41390ec675ad498afeebb6960b3aabe6"))
        try checkReferencePackets(
            keys: keys,
            srtp: "800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb",
            srtcp: "81c8000bcafebabe7128035be487b9bdbef89041f977a5a880000001993e08cd54d6c1230798")
    }

    func testLibSRTPReferencePacketAEADAES128GCM() throws {
        try XCTSkipUnless(SRTPSuite.aeadAES128GCM.isAvailable, "libsrtp built without GCM")
        let keys = try SRTPKeyMaterial(
            suite: .aeadAES128GCM,
            keyAndSalt: SRTPTestSupport.bytes("000102030405060708090a0b0c0d0e0f a0a1a2a3a4a5a6a7a8a9aaab"))
        try checkReferencePackets(
            keys: keys,
            srtp: "800f1234decafbadcafebabec5002ede04cfdd2eb91159e0880aa06ed2976826f796b201df3131a127e8a392",
            srtcp: "81c8000bcafebabec98b8b5df0392a55852b6c21ac8e7025c52c6fbea2b3b446ea31123ba88ce61e80000001")
    }
}
