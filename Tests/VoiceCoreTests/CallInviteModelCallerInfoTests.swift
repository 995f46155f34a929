import VoiceSIP
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallInviteModelCallerInfoTests: XCTestCase {
    func testVerstatValues() {
        XCTAssertEqual(CallerInfo(verstat: "TN-Validation-Passed").isVerified, true)
        XCTAssertEqual(CallerInfo(verstat: "tn-validation-passed").isVerified, true)
        XCTAssertEqual(CallerInfo(verstat: "TN-Validation-Failed").isVerified, false)
        XCTAssertNil(CallerInfo(verstat: "No-TN-Validation").isVerified)
        XCTAssertNil(CallerInfo(verstat: "").isVerified)
    }

    func testFromHeaders() {
        let rows: [([(String, String)], Bool?, String)] = [
            ([("From", "<sip:+14155550101@example.com;user=phone;verstat=TN-Validation-Passed>;tag=1")], true, "From URI"),
            ([("From", "<sip:+14155550101@example.com;user=phone;verstat=TN-Validation-Failed>;tag=1")], false, "failed"),
            ([("From", "\"Alice\" <sip:alice@example.com>;tag=1")], nil, "absent"),
            ([("From", "<sip:alice@example.com>;tag=1;verstat=TN-Validation-Passed")], true, "header parameter"),
            (
                [
                    ("From", "<sip:alice@example.com;verstat=TN-Validation-Failed>;tag=1"),
                    ("P-Asserted-Identity", "<tel:+14155550101;verstat=TN-Validation-Passed>"),
                ], true, "P-Asserted-Identity first"
            ),
            (
                [
                    ("P-Asserted-Identity", "<sip:alice@example.com>, <tel:+14155550101;verstat=TN-Validation-Failed>"),
                    ("From", "<sip:alice@example.com>;tag=1"),
                ], false, "second PAI entry"
            ),
            (
                [("P-Asserted-Identity", "<<<garbage"), ("From", "<sip:a@example.com;verstat=TN-Validation-Passed>")],
                true, "malformed PAI skipped"
            ),
            ([("From", "not an address <<")], nil, "malformed From"),
            ([], nil, "no headers"),
        ]
        for (pairs, expected, label) in rows {
            XCTAssertEqual(CallerInfo(headers: SIPHeaders(pairs)).isVerified, expected, label)
        }
    }
}
