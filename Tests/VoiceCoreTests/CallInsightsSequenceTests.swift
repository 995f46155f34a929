import VoiceEmbedded
import Foundation
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceMediaTypes

/// The exact `connection` (and `settings`) Insights events each side publishes in the main call
/// scenarios over real SIP, per the seed's table.
final class CallInsightsSequenceTests: VirtualTimeTestCase {

    /// The connection and settings events `client` published, as `group:name`, once `count` of
    /// them arrived (they are published on the signaling loop, a moment after the callbacks).
    private func sequence(_ client: TestVoiceClient, count: Int) -> [String] {
        let names = { client.insights.events.filter { $0.group == .connection || $0.group == .settings }.map(\.qualifiedName) }
        _ = PollingWait.until(timeout: 5) { names().count >= count }
        return names()
    }

    func testConnectedThenEndedByTheCaller() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)
        caller.disconnect()
        XCTAssertEqual(pair.callerDelegate.waitForEnd().last, .disconnected(nil))
        XCTAssertEqual(pair.calleeDelegate.waitForEnd().last, .disconnected(nil))
        XCTAssertEqual(sequence(pair.alice, count: 6), [
            "connection:ringing", "settings:codec", "connection:accepted-by-remote", "connection:connected",
            "connection:disconnect-called", "connection:disconnected-by-local",
        ])
        XCTAssertEqual(sequence(pair.bob, count: 4), [
            "connection:accepted-by-local", "settings:codec", "connection:connected", "connection:disconnected-by-remote",
        ])
        let codec = try XCTUnwrap(pair.alice.insights.events(in: .settings).first)
        XCTAssertEqual(codec.name, "codec")
        XCTAssertEqual(codec.payload["selected_codec"], .string("opus"), "\(codec.payload)")
        for client in [pair.alice, pair.bob] {
            XCTAssertEqual(Set(client.insights.events.map(\.callSid)), [caller.sid], "every event names the call")
        }
    }

    func testRejectedInvite() throws {
        let alice = try TestVoiceClient("alice", world: world), bob = try TestVoiceClient("bob", world: world)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        notifications.onInvite.withLock { $0 = { invite in invite.reject() } }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .failed(.busyEverywhere)])
        XCTAssertEqual(sequence(bob, count: 2), ["connection:rejected-by-local", "connection:error"])
        let calleeError = try XCTUnwrap(bob.insights.events(in: .connection).last)
        XCTAssertEqual(calleeError.payload["code"], .int(31600), "\(calleeError.payload)")
        XCTAssertEqual(calleeError.callSid, call.sid)
        XCTAssertEqual(sequence(alice, count: 2), ["connection:ringing", "connection:error"])
        let callerError = try XCTUnwrap(alice.insights.events(in: .connection).last)
        XCTAssertEqual(callerError.payload["code"], .int(31600), "\(callerError.payload)")
    }

    func testCallerDisconnectsWhileRinging() throws {
        let alice = try TestVoiceClient("alice", world: world), bob = try TestVoiceClient("bob", world: world)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 1), [.ringing])
        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .disconnected(nil)])
        XCTAssertTrue(PollingWait.until(timeout: 5) { !notifications.cancelled.withLock { $0 }.isEmpty })
        XCTAssertEqual(sequence(alice, count: 3), [
            "connection:ringing", "connection:disconnect-called", "connection:disconnected-by-local",
        ])
        XCTAssertEqual(sequence(bob, count: 0), [], "an invite that was never answered reports nothing")
    }
}
