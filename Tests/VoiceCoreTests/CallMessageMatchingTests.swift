import VoiceEmbedded
import Foundation
import VoiceSIP
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceMediaTypes

/// Each call message's outcome comes from the answer to its own INFO, not from the order answers
/// arrive in: digits sent as INFO share the path and never settle a message. And messages from
/// user agents that do not send our identity headers still arrive, with a fresh identity. In
/// virtual time (``VirtualCallWorld``).
final class CallMessageMatchingTests: VirtualTimeTestCase {

    /// Alice calls a scripted peer that answers at once and has no telephone-event, so digits go as INFO.
    private struct PeerCall {
        let alice: TestVoiceClient
        let peer: SIPScriptedPeer
        let delegate = RecordingCallDelegate()
        let messages: RecordingMessageDelegate
        let call: Call

        init(world: VirtualCallWorld) throws {
            peer = try SIPScriptedPeer(host: world.makeHost(), port: 5060, network: world.sipNetwork.transportFactory)
            // No media comes from the peer: keep the call from reconnecting for silence meanwhile.
            alice = try TestVoiceClient("alice", world: world) {
                $0.reconnection = CallReconnectionPolicy(mediaSilenceThreshold: .seconds(120))
                // The scripted peer answers SDES offers (a plain SIP peer's).
                $0.mediaSecurity = .sdes
            }
            messages = RecordingMessageDelegate(queue: delegate.queue)
            let delegate = self.delegate, messages = self.messages, peer = self.peer
            call = alice.client.connect(
                options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                    builder.params = ["To": peer.uri.description]
                    builder.delegateQueue = delegate.queue
                    builder.callMessageDelegate = messages
                },
                delegate: delegate)
            XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        }

        /// The INFO requests the peer received, as "dtmf" or "json".
        var infoKinds: [String] {
            peer.requests.filter { $0.method == .info }.map { request in
                request.headers.first("content-type") == "application/dtmf-relay" ? "dtmf" : "json"
            }
        }

        func close() {
            call.disconnect()
            alice.client.shutdown()
            peer.shutdown()
        }
    }

    private static func isDigits(_ request: SIPRequest) -> Bool {
        request.headers.first("content-type") == "application/dtmf-relay"
    }

    func testDigitsRefusedAndAMessageAcceptedEachGetTheirOwnOutcome() throws {
        let call = try PeerCall(world: world)
        defer { call.close() }
        call.peer.setAnswer { Self.isDigits($0) ? .status(400) : .session }
        let message = CallMessage(content: #"{"after":"digits"}"#)
        call.call.sendDigits("5")
        XCTAssertEqual(call.call.sendMessage(message), message.voiceEventSid)
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.messages.sent.withLock { $0 } == [message.voiceEventSid] })
        XCTAssertEqual(call.infoKinds, ["dtmf", "json"], "the refused digits were answered first")
        XCTAssertTrue(call.messages.failed.withLock { $0 }.isEmpty, "the digits' 400 is not the message's")
        XCTAssertEqual(call.call.state, .connected)
    }

    func testAMessageRefusedWhileDigitsAreAcceptedFailsWithItsOwnStatus() throws {
        let call = try PeerCall(world: world)
        defer { call.close() }
        call.peer.setAnswer { Self.isDigits($0) ? .session : .status(488) }
        let refused = CallMessage(content: #"{"refused":true}"#)
        call.call.sendDigits("7")
        _ = call.call.sendMessage(refused)
        XCTAssertTrue(PollingWait.until(timeout: 5) { !call.messages.failed.withLock { $0 }.isEmpty })
        XCTAssertEqual(call.infoKinds, ["dtmf", "json"])
        let failures = call.messages.failed.withLock { $0 }
        XCTAssertEqual(failures.map(\.0), [refused])
        XCTAssertEqual(failures.first?.1.sipStatus, 488)
        XCTAssertTrue(call.messages.sent.withLock { $0 }.isEmpty, "the digits' 200 is not the message's")

        // Digits between two messages change nothing either.
        call.peer.setAnswer { _ in .session }
        let accepted = CallMessage(content: #"{"accepted":true}"#)
        _ = call.call.sendMessage(accepted)
        call.call.sendDigits("8")
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.messages.sent.withLock { $0 } == [accepted.voiceEventSid] })
        XCTAssertEqual(call.messages.failed.withLock { $0.count }, 1)
    }

    func testMessagesWithoutIdentityHeadersGetAFreshOne() throws {
        let call = try PeerCall(world: world)
        defer { call.close() }
        try call.peer.sendInfo(contentType: "application/json", body: Array(#"{"from":"another UA"}"#.utf8))
        let identified = SIPHeaders([
            (CallMessage.voiceEventSidHeader, "KX00112233445566778899aabbccddeeff"), (CallMessage.messageTypeHeader, "custom-type"),
        ])
        try call.peer.sendInfo(contentType: "application/json", body: Array("{}".utf8), headers: identified)
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.messages.received.withLock { $0.count } == 2 })
        let received = call.messages.received.withLock { $0 }
        XCTAssertEqual(received.first?.content, #"{"from":"another UA"}"#)
        XCTAssertEqual(received.first?.messageType, CallMessage.defaultMessageType)
        XCTAssertEqual(received.first?.voiceEventSid.count, 34)
        XCTAssertEqual(received.first?.voiceEventSid.hasPrefix(CallMessage.sidPrefix), true)
        XCTAssertEqual(
            received.last,
            CallMessage(
                content: "{}", contentType: "application/json", messageType: "custom-type",
                voiceEventSid: "KX00112233445566778899aabbccddeeff"))
        // Our 200s travel back to the peer on their own: wait for the second as for the messages.
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.peer.responses.count >= 2 })
        XCTAssertEqual(call.peer.responses.map(\.statusCode), [200, 200])
    }
}
