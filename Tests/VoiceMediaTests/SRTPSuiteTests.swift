import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class SRTPSuiteTests: XCTestCase {
    func testParametersMatchTheRFCs() {
        // name, master key, master salt, SRTP tag, SRTCP tag (RFC 4568 §6.2, RFC 6188 §7, RFC 7714 §12).
        let table: [(SRTPSuite, String, Int, Int, Int, Int)] = [
            (.aesCM128HmacSHA1_80, "AES_CM_128_HMAC_SHA1_80", 16, 14, 10, 10),
            (.aesCM128HmacSHA1_32, "AES_CM_128_HMAC_SHA1_32", 16, 14, 4, 10),
            (.aes256CMHmacSHA1_80, "AES_256_CM_HMAC_SHA1_80", 32, 14, 10, 10),
            (.aes256CMHmacSHA1_32, "AES_256_CM_HMAC_SHA1_32", 32, 14, 4, 10),
            (.aeadAES128GCM, "AEAD_AES_128_GCM", 16, 12, 16, 16),
            (.aeadAES256GCM, "AEAD_AES_256_GCM", 32, 12, 16, 16),
        ]
        XCTAssertEqual(table.count, SRTPSuite.allCases.count)
        for (suite, name, key, salt, tag, rtcpTag) in table {
            XCTAssertEqual(suite.sdesName, name)
            XCTAssertEqual(suite.description, name)
            XCTAssertEqual(SRTPSuite(sdesName: name), suite)
            XCTAssertEqual(suite.masterKeyLength, key, name)
            XCTAssertEqual(suite.masterSaltLength, salt, name)
            XCTAssertEqual(suite.keyMaterialLength, key + salt, name)
            XCTAssertEqual(suite.authTagLength, tag, name)
            XCTAssertEqual(suite.rtcpAuthTagLength, rtcpTag, name)
            XCTAssertEqual(suite.rtpTrailerLength(), tag, name)
            XCTAssertEqual(suite.rtcpTrailerLength(mkiLength: 4), 4 + rtcpTag + 4, name)
        }
    }

    func testUnknownOrMiscasedNamesAreNotSuites() {
        XCTAssertNil(SRTPSuite(sdesName: "F8_128_HMAC_SHA1_80"))
        XCTAssertNil(SRTPSuite(sdesName: "aes_cm_128_hmac_sha1_80"))
        XCTAssertNil(SRTPSuite(sdesName: ""))
    }

    func testPreferredOrderListsEverySuiteOnceStrongestFirst() {
        XCTAssertEqual(SRTPSuite.preferredOrder.count, SRTPSuite.allCases.count)
        XCTAssertEqual(Set(SRTPSuite.preferredOrder), Set(SRTPSuite.allCases))
        XCTAssertEqual(SRTPSuite.preferredOrder.first, .aeadAES256GCM)
        XCTAssertEqual(SRTPSuite.preferredOrder.last, .aesCM128HmacSHA1_32)
        let aes80 = SRTPSuite.preferredOrder.firstIndex(of: .aesCM128HmacSHA1_80) ?? -1
        let aes32 = SRTPSuite.preferredOrder.firstIndex(of: .aesCM128HmacSHA1_32) ?? -1
        XCTAssertLessThan(aes80, aes32, "80-bit tags before 32-bit tags")
    }

    func testAvailableIsPreferredOrderFilteredByRuntimeProbe() {
        XCTAssertEqual(SRTPSuite.available, SRTPSuite.preferredOrder.filter(\.isAvailable))
        XCTAssertTrue(SRTPSuite.aesCM128HmacSHA1_80.isAvailable, "the default suite is always built in")
    }
}
