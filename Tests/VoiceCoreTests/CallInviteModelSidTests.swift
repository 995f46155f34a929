import VoiceSIP
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallInviteModelSidTests: XCTestCase {
    func testDerivedFromCallIDWithAKnownVector() {
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223 b00361a3…
        XCTAssertEqual(CallSid(callID: "abc").rawValue, "CAba7816bf8f01cfea414140de5dae2223")
        XCTAssertEqual(CallSid(callID: "abc"), CallSid(callID: "abc"))
        XCTAssertNotEqual(CallSid(callID: "abc"), CallSid(callID: "abd"))
        XCTAssertEqual(CallSid(callID: "x").rawValue.count, 34)
    }

    func testValidation() {
        XCTAssertEqual(CallSid("CA0123456789abcdef0123456789abcdef")?.rawValue, "CA0123456789abcdef0123456789abcdef")
        XCTAssertEqual(CallSid("CA0123456789ABCDEF0123456789ABCDEF")?.rawValue, "CA0123456789abcdef0123456789abcdef")
        for bad in [
            "", "CA", "CA0123456789abcdef0123456789abcde", "CA0123456789abcdef0123456789abcdef0",
            "ca0123456789abcdef0123456789abcdef", "CB0123456789abcdef0123456789abcdef",
            "CA0123456789abcdef0123456789abcdeg", "CA0123456789abcdef0123456789abcdé",
        ] {
            XCTAssertNil(CallSid(bad), bad)
        }
    }

    func testFromInviteHeaders() throws {
        let supplied = SIPHeaders([("Call-ID", "abc"), ("X-Twilio-CallSid", "CAffffffffffffffffffffffffffffffff")])
        XCTAssertEqual(try CallSid(headers: supplied).rawValue, "CAffffffffffffffffffffffffffffffff")
        let derived = SIPHeaders([("i", "abc")])
        XCTAssertEqual(try CallSid(headers: derived), CallSid(callID: "abc"))
        let invalidSupplied = SIPHeaders([("Call-ID", "abc"), ("x-twilio-callsid", "CA12")])
        XCTAssertEqual(try CallSid(headers: invalidSupplied), CallSid(callID: "abc"), "an invalid header falls back")
        XCTAssertThrowsError(try CallSid(headers: SIPHeaders([("From", "<sip:a@b>")]))) { error in
            XCTAssertEqual((error as? VoiceError)?.code, .malformedRequest)
        }
    }
}
