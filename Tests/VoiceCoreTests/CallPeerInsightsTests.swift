import VoiceEmbedded
import Foundation
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceTestAudio
import VoiceMediaTypes

/// The peer-connection, ICE and signaling-state Insights events of a call, mapped onto SIP
/// offer/answer and the RTP stream.
final class CallPeerInsightsTests: VirtualTimeTestCase {

    func testConnectedCallReportsOfferAnswerAndMediaLifecycleOnBothSides() throws {
        let tone = TestSignals.multiTone([(440, 4_000)], seconds: 3)
        let alice = try TestVoiceClient("alice", signal: tone, world: world), bob = try TestVoiceClient("bob", signal: tone, world: world)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate()
        notifications.acceptEach(with: calleeDelegate)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        // The media watchdog looks once a second: wait until packets were seen.
        XCTAssertTrue(PollingWait.until(timeout: 5) {
            alice.insights.events(in: .pcConnectionState).contains { $0.name == "connected" }
        })
        call.disconnect()
        XCTAssertEqual(calleeDelegate.waitForEnd().last, .disconnected(nil))
        XCTAssertTrue(PollingWait.until(timeout: 5) {
            bob.insights.events(in: .signalingState).last?.name == "closed"
        })

        XCTAssertEqual(alice.insights.events(in: .signalingState).map(\.name), ["have-local-offer", "stable", "closed"])
        XCTAssertEqual(bob.insights.events(in: .signalingState).map(\.name), ["have-remote-offers", "stable", "closed"])
        XCTAssertEqual(alice.insights.events(in: .pcConnectionState).map(\.name), ["new", "connecting", "connected", "closed"])
        XCTAssertEqual(alice.insights.events(in: .iceConnectionState).map(\.name), ["new", "checking", "connected", "closed"])
        let pair = try XCTUnwrap(alice.insights.events(in: .iceCandidate).last)
        XCTAssertEqual(pair.name, "selected-ice-candidate-pair")
        XCTAssertEqual(alice.insights.events(in: .settings).map(\.name), ["codec"])
        XCTAssertTrue(alice.insights.events(in: .signalingState).allSatisfy { $0.callSid == call.sid })
    }
}
