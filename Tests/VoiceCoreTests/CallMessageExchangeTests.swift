import Foundation
import NIOConcurrencyHelpers
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Call messages as SIP INFO application/json over a real call, both ways, with the size and
/// rate limits, and on invites and ended calls.
final class CallMessageExchangeTests: XCTestCase {
    func testMessagesTravelBothWaysAndTheSenderLearnsTheyWereSent() throws {
        let pair = try ConnectedCallPair()
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller), callee = try XCTUnwrap(pair.callee)

        let toBob = CallMessage(content: #"{"order":42}"#)
        XCTAssertEqual(caller.sendMessage(toBob), toBob.voiceEventSid)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.callerMessages.sent.withLockedValue { $0 } == [toBob.voiceEventSid] })
        XCTAssertTrue(PollingWait.until(timeout: 5) { !pair.calleeMessages.received.withLockedValue { $0 }.isEmpty })
        let atBob = try XCTUnwrap(pair.calleeMessages.received.withLockedValue { $0.first })
        XCTAssertEqual(atBob.content, #"{"order":42}"#)
        XCTAssertEqual(atBob.contentType, "application/json")

        let toAlice = CallMessage(content: #"{"reply":"ok"}"#)
        XCTAssertEqual(callee.sendMessage(toAlice), toAlice.voiceEventSid)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.calleeMessages.sent.withLockedValue { $0 } == [toAlice.voiceEventSid] })
        XCTAssertTrue(PollingWait.until(timeout: 5) { !pair.callerMessages.received.withLockedValue { $0 }.isEmpty })
        XCTAssertEqual(pair.callerMessages.received.withLockedValue { $0.map(\.content) }, [#"{"reply":"ok"}"#])
        XCTAssertTrue(pair.callerMessages.failed.withLockedValue { $0 }.isEmpty)
        XCTAssertTrue(pair.calleeMessages.failed.withLockedValue { $0 }.isEmpty)
    }

    func testMessagesOverTenKilobytesOrTenAMinuteFail() throws {
        let pair = try ConnectedCallPair()
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)

        let big = CallMessage(content: "\"" + String(repeating: "a", count: 10 * 1024) + "\"")
        _ = caller.sendMessage(big)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.callerMessages.failed.withLockedValue { $0.count } == 1 })
        XCTAssertEqual(pair.callerMessages.failed.withLockedValue { $0.first?.0.voiceEventSid }, big.voiceEventSid)
        XCTAssertEqual(pair.callerMessages.failed.withLockedValue { $0.first?.1.code }, .malformedRequest)
        let fits = CallMessage(content: "\"" + String(repeating: "a", count: 10 * 1024 - 2) + "\"")
        _ = caller.sendMessage(fits)

        let more = (1...9).map { CallMessage(content: #"{"n":\#($0)}"#) }
        for message in more { _ = caller.sendMessage(message) }
        let eleventh = CallMessage(content: #"{"n":11}"#)
        _ = caller.sendMessage(eleventh)
        XCTAssertTrue(PollingWait.until(timeout: 10) { pair.callerMessages.sent.withLockedValue { $0.count } == 10 },
                      "\(pair.callerMessages.sent.withLockedValue { $0.count }) sent")
        XCTAssertEqual(Set(pair.callerMessages.sent.withLockedValue { $0 }), Set(([fits] + more).map(\.voiceEventSid)))
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.callerMessages.failed.withLockedValue { $0.count } == 2 })
        XCTAssertEqual(pair.callerMessages.failed.withLockedValue { $0.last?.0.voiceEventSid }, eleventh.voiceEventSid)
        XCTAssertEqual(pair.callerMessages.failed.withLockedValue { $0.last?.1.code }, .tooManyRequests)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.calleeMessages.received.withLockedValue { $0.count } == 10 })
        XCTAssertEqual(pair.calleeMessages.received.withLockedValue { $0.first?.content.utf8.count }, 10 * 1024)
    }

    func testInviteMessageFailsBeforeAcceptAndEndedCallsSendNothing() throws {
        let alice = try TestVoiceClient("alice"), bob = try TestVoiceClient("bob")
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = ScriptedNotificationDelegate()
        let inviteMessages = RecordingMessageDelegate(queue: notifications.queue)
        let registered = expectation(description: "registered")
        bob.client.register(
            accessToken: CallTestTokens.token("bob"), notificationDelegate: notifications, delegateQueue: notifications.queue,
            callMessageDelegate: inviteMessages
        ) { error in
            XCTAssertNil(error)
            registered.fulfill()
        }
        wait(for: [registered], timeout: 5)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        let invite = try XCTUnwrap(notifications.waitForInvite())
        let message = CallMessage(content: #"{"early":true}"#)
        XCTAssertEqual(invite.sendMessage(message), message.voiceEventSid)
        XCTAssertTrue(PollingWait.until(timeout: 5) { !inviteMessages.inviteFailed.withLockedValue { $0 }.isEmpty })
        XCTAssertEqual(inviteMessages.inviteFailed.withLockedValue { $0.first?.0 }, message)
        XCTAssertEqual(inviteMessages.inviteFailed.withLockedValue { $0.first?.1.code }, .callDoesNotExist)

        XCTAssertEqual(call.sendMessage(CallMessage(content: "{}")), "", "a ringing call has no confirmed dialog")
        invite.reject()
        XCTAssertEqual(delegate.waitForEnd().last, .failed(.busyEverywhere))
        XCTAssertEqual(invite.sendMessage(CallMessage(content: "{}")), "", "the invite was answered")
        XCTAssertEqual(call.sendMessage(CallMessage(content: "{}")), "", "the call is over")
    }
}
