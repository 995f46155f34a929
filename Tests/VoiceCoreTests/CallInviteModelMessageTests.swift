import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallInviteModelMessageTests: XCTestCase {
    func testDefaultsAndSid() {
        let message = CallMessage(content: #"{"hello":1}"#)
        XCTAssertEqual(message.contentType, "application/json")
        XCTAssertEqual(message.messageType, "user-defined-message")
        XCTAssertTrue(message.voiceEventSid.hasPrefix("KX"))
        XCTAssertEqual(message.voiceEventSid.count, 34)
        XCTAssertTrue(message.voiceEventSid.dropFirst(2).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        XCTAssertNotEqual(message.voiceEventSid, CallMessage(content: "x").voiceEventSid)
    }

    func testSizeLimitAtTheEdge() {
        XCTAssertNoThrow(try CallMessage(content: String(repeating: "a", count: 10_240)).validateForSending())
        XCTAssertThrowsError(try CallMessage(content: String(repeating: "a", count: 10_241)).validateForSending()) {
            XCTAssertEqual(($0 as? VoiceError)?.code, .malformedRequest)
        }
        // Bytes, not characters: 3 414 × "☎" (3 bytes each) is 10 242 bytes.
        XCTAssertThrowsError(try CallMessage(content: String(repeating: "☎", count: 3_414)).validateForSending())
        XCTAssertThrowsError(try CallMessage(content: "{}", contentType: "").validateForSending())
        XCTAssertThrowsError(try CallMessage(content: "{}", messageType: "a\r\nb").validateForSending())
    }

    func testRateLimitOnAVirtualClock() {
        var limiter = CallMessageRateLimiter()
        for second in 0..<10 {
            XCTAssertTrue(limiter.admit(at: .seconds(Double(second))), "message \(second)")
        }
        XCTAssertFalse(limiter.admit(at: .seconds(10)), "eleventh within a minute")
        XCTAssertFalse(limiter.admit(at: .milliseconds(59_999)), "first send still inside the window")
        XCTAssertTrue(limiter.admit(at: .seconds(60)), "the first send left the window")
        XCTAssertFalse(limiter.admit(at: .seconds(60.5)))
        XCTAssertTrue(limiter.admit(at: .seconds(61)))
        XCTAssertTrue(limiter.admit(at: .seconds(200)))
        XCTAssertEqual(CallMessageRateLimiter.rateExceededError.code, .tooManyRequests)
    }
}
