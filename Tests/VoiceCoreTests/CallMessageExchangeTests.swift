import VoiceEmbedded
import Foundation
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceMediaTypes

/// Call messages as SIP INFO application/json over a real call, both ways, with their identity
/// and the size and rate limits.
final class CallMessageExchangeTests: VirtualTimeTestCase {

    func testMessagesTravelBothWaysAndTheSenderLearnsTheyWereSent() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller), callee = try XCTUnwrap(pair.callee)

        let toBob = CallMessage(content: #"{"order":42}"#, messageType: "order-update")
        XCTAssertEqual(caller.sendMessage(toBob), toBob.voiceEventSid)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.callerMessages.sent.withLock { $0 } == [toBob.voiceEventSid] })
        XCTAssertTrue(PollingWait.until(timeout: 5) { !pair.calleeMessages.received.withLock { $0 }.isEmpty })
        let atBob = try XCTUnwrap(pair.calleeMessages.received.withLock { $0.first })
        XCTAssertEqual(atBob, toBob, "the receiver sees the sender's SID and message type")

        let toAlice = CallMessage(content: #"{"reply":"ok"}"#)
        XCTAssertEqual(callee.sendMessage(toAlice), toAlice.voiceEventSid)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.calleeMessages.sent.withLock { $0 } == [toAlice.voiceEventSid] })
        XCTAssertTrue(PollingWait.until(timeout: 5) { !pair.callerMessages.received.withLock { $0 }.isEmpty })
        XCTAssertEqual(pair.callerMessages.received.withLock { $0 }, [toAlice])
        XCTAssertTrue(pair.callerMessages.failed.withLock { $0 }.isEmpty)
        XCTAssertTrue(pair.calleeMessages.failed.withLock { $0 }.isEmpty)
    }

    func testMessagesOverTenKilobytesOrTenAMinuteFail() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)

        let big = CallMessage(content: "\"" + String(repeating: "a", count: 10 * 1024) + "\"")
        _ = caller.sendMessage(big)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.callerMessages.failed.withLock { $0.count } == 1 })
        XCTAssertEqual(pair.callerMessages.failed.withLock { $0.first?.0.voiceEventSid }, big.voiceEventSid)
        XCTAssertEqual(pair.callerMessages.failed.withLock { $0.first?.1.code }, .malformedRequest)
        let fits = CallMessage(content: "\"" + String(repeating: "a", count: 10 * 1024 - 2) + "\"")
        _ = caller.sendMessage(fits)

        let more = (1...9).map { CallMessage(content: #"{"n":\#($0)}"#) }
        for message in more { _ = caller.sendMessage(message) }
        let eleventh = CallMessage(content: #"{"n":11}"#)
        _ = caller.sendMessage(eleventh)
        XCTAssertTrue(PollingWait.until(timeout: 10) { pair.callerMessages.sent.withLock { $0.count } == 10 },
                      "\(pair.callerMessages.sent.withLock { $0.count }) sent")
        XCTAssertEqual(Set(pair.callerMessages.sent.withLock { $0 }), Set(([fits] + more).map(\.voiceEventSid)))
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.callerMessages.failed.withLock { $0.count } == 2 })
        XCTAssertEqual(pair.callerMessages.failed.withLock { $0.last?.0.voiceEventSid }, eleventh.voiceEventSid)
        XCTAssertEqual(pair.callerMessages.failed.withLock { $0.last?.1.code }, .tooManyRequests)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.calleeMessages.received.withLock { $0.count } == 10 })
        XCTAssertEqual(pair.calleeMessages.received.withLock { $0.first?.content.utf8.count }, 10 * 1024)
    }
}
