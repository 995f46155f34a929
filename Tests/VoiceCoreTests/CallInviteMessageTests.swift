import VoiceEmbedded
import Foundation
import VoiceSIP
import VoiceSIPAgent
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceMediaTypes

/// Call messages from a ringing callee to the caller (`CallInvite.sendMessage`), as SIP INFO in
/// the early dialog its 180 set up, over real SIP on loopback.
final class CallInviteMessageTests: VirtualTimeTestCase {

    /// Alice calls Bob; Bob's invite rings. Bob registered with `inviteMessages`.
    private struct RingingCall {
        let alice: TestVoiceClient
        let bob: TestVoiceClient
        let notifications: ScriptedNotificationDelegate
        let inviteMessages: RecordingMessageDelegate
        let callerDelegate = RecordingCallDelegate()
        let callerMessages: RecordingMessageDelegate
        let call: Call
        let invite: CallInvite

        init(transport: SIPTransportProtocol = .udp) throws {
            alice = try TestVoiceClient("alice", transport: transport, world: VirtualCallWorld.current)
            bob = try TestVoiceClient("bob", transport: transport, world: VirtualCallWorld.current)
            notifications = ScriptedNotificationDelegate()
            inviteMessages = RecordingMessageDelegate(queue: notifications.queue)
            bob.listen(with: notifications, callMessageDelegate: inviteMessages)
            callerMessages = RecordingMessageDelegate(queue: callerDelegate.queue)
            let destination = bob.address
            let delegate = callerDelegate, messages = callerMessages
            call = alice.client.connect(
                options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                    builder.params = ["To": destination]
                    builder.delegateQueue = delegate.queue
                    builder.callMessageDelegate = messages
                },
                delegate: callerDelegate)
            invite = try XCTUnwrap(notifications.waitForInvite())
            XCTAssertEqual(callerDelegate.wait(for: 1), [.ringing])
        }

        func close() {
            call.disconnect()
            alice.client.shutdown()
            bob.client.shutdown()
        }
    }

    func testRingingCalleeMessagesTheCallerOverUDPAndTCP() throws {
        for transport in [SIPTransportProtocol.udp, .tcp] {
            let ringing = try RingingCall(transport: transport)
            defer { ringing.close() }
            let message = CallMessage(content: #"{"eta":"2 min"}"#, messageType: "status-update")
            XCTAssertEqual(ringing.invite.sendMessage(message), message.voiceEventSid)
            XCTAssertTrue(
                PollingWait.until(timeout: 5) { ringing.inviteMessages.inviteSent.withLock { $0 } == [message.voiceEventSid] },
                "\(transport): \(ringing.inviteMessages.inviteFailed.withLock { $0 })")
            XCTAssertTrue(PollingWait.until(timeout: 5) { !ringing.callerMessages.received.withLock { $0 }.isEmpty })
            XCTAssertEqual(ringing.callerMessages.received.withLock { $0 }, [message], "\(transport)")
            XCTAssertTrue(
                world.sipNetwork.sent.contains { $0.destination.transport == transport && $0.message?.request?.method == .info },
                "the INFO went over \(transport)")
            XCTAssertTrue(ringing.inviteMessages.inviteFailed.withLock { $0 }.isEmpty)
            XCTAssertEqual(ringing.call.state, .ringing, "the message does not answer the call")
            // The caller's side of a ringing call stays without messages (Call.sendMessage needs a connected call).
            XCTAssertEqual(ringing.call.sendMessage(CallMessage(content: "{}")), "")

            // After the answer, the call goes on in the same dialog.
            let calleeDelegate = RecordingCallDelegate()
            let accepted = ringing.invite.accept(
                options: AcceptOptions(callInvite: ringing.invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            XCTAssertEqual(calleeDelegate.wait(for: 1), [.connected], "\(transport)")
            XCTAssertEqual(ringing.callerDelegate.wait(for: 2), [.ringing, .connected], "\(transport)")
            XCTAssertEqual(ringing.invite.sendMessage(CallMessage(content: "{}")), "", "the invite was accepted")
            accepted.disconnect()
            XCTAssertEqual(ringing.callerDelegate.waitForEnd().last, .disconnected(nil))
        }
    }

    func testInviteMessagesKeepTheSizeAndRateLimitsAndStopOnceAnswered() throws {
        let ringing = try RingingCall()
        defer { ringing.close() }
        let big = CallMessage(content: "\"" + String(repeating: "a", count: 10 * 1024) + "\"")
        XCTAssertEqual(ringing.invite.sendMessage(big), big.voiceEventSid)
        let messages = (1...10).map { CallMessage(content: #"{"n":\#($0)}"#) }
        for message in messages { _ = ringing.invite.sendMessage(message) }
        let eleventh = CallMessage(content: #"{"n":11}"#)
        _ = ringing.invite.sendMessage(eleventh)
        XCTAssertTrue(PollingWait.until(timeout: 10) { ringing.inviteMessages.inviteSent.withLock { $0.count } == 10 })
        XCTAssertEqual(Set(ringing.inviteMessages.inviteSent.withLock { $0 }), Set(messages.map(\.voiceEventSid)))
        XCTAssertTrue(PollingWait.until(timeout: 5) { ringing.inviteMessages.inviteFailed.withLock { $0.count } == 2 })
        let failed = ringing.inviteMessages.inviteFailed.withLock { $0 }
        XCTAssertEqual(failed.map(\.0), [big, eleventh])
        XCTAssertEqual(failed.map(\.1.code), [.malformedRequest, .tooManyRequests])
        XCTAssertTrue(PollingWait.until(timeout: 5) { ringing.callerMessages.received.withLock { $0.count } == 10 })

        ringing.invite.reject()
        XCTAssertEqual(ringing.callerDelegate.waitForEnd().last, .failed(.busyEverywhere))
        XCTAssertEqual(ringing.invite.sendMessage(CallMessage(content: "{}")), "", "the invite was rejected")
    }

    func testHandleNotificationNamesTheDelegateForTheInvitesMessages() throws {
        let ringing = try RingingCall()
        defer { ringing.close() }
        let pushed = ScriptedNotificationDelegate()
        let pushedMessages = RecordingMessageDelegate(queue: pushed.queue)
        let payload = [
            "twi_message_type": "twilio.voice.call", "twi_call_sid": ringing.call.sid, "twi_from": "client:alice",
            "twi_to": "client:bob",
        ]
        XCTAssertTrue(
            ringing.bob.client.handleNotification(
                payload, delegate: pushed, delegateQueue: pushed.queue, callMessageDelegate: pushedMessages))
        let invite = try XCTUnwrap(pushed.waitForInvite())
        let message = CallMessage(content: #"{"pushed":true}"#)
        XCTAssertEqual(invite.sendMessage(message), message.voiceEventSid)
        XCTAssertTrue(PollingWait.until(timeout: 5) { pushedMessages.inviteSent.withLock { $0 } == [message.voiceEventSid] })
        XCTAssertTrue(ringing.inviteMessages.inviteSent.withLock { $0 }.isEmpty, "the registration's delegate is replaced")
    }
}
