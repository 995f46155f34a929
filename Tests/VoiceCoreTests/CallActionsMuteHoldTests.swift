import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceMediaTypes

/// Mute and hold over a real call, in virtual time (``VirtualCallWorld``): what the peer hears,
/// what is played locally, the re-INVITE direction, and the Insights events.
final class CallActionsMuteHoldTests: VirtualTimeTestCase {

    /// Above this RMS the tone is clearly audible (it is sent at amplitude 8000, RMS ≈ 5600).
    private let audible = 1_000.0
    /// Below this RMS the recording is silence.
    private let silent = 50.0

    func testMuteSendsSilentFramesThePeerKeepsReceiving() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)
        let bobDevice = pair.bob.device
        XCTAssertGreaterThan(ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.5), audible, "bob hears alice before mute")

        caller.isMuted = true
        XCTAssertTrue(PollingWait.until(timeout: 5) { caller.isMuted })
        _ = ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.3)  // drains what the jitter buffer held
        let packetsBefore = try ConnectedCallPair.onCore(pair.callee) { $0?.media?.stream?.stats.packetsReceived } ?? 0
        XCTAssertLessThan(ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.5), silent, "bob hears silence while alice is muted")
        let packetsAfter = try ConnectedCallPair.onCore(pair.callee) { $0?.media?.stream?.stats.packetsReceived } ?? 0
        XCTAssertGreaterThan(packetsAfter, packetsBefore + 10, "muted frames still reach the peer")

        caller.isMuted = false
        XCTAssertTrue(PollingWait.until(timeout: 5) { !caller.isMuted })
        _ = ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.3)
        XCTAssertGreaterThan(ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.5), audible, "bob hears alice again")

        let connection = pair.alice.insights.events(in: .connection).map(\.name)
        XCTAssertEqual(connection.filter { $0 == "muted" || $0 == "unmuted" }, ["muted", "unmuted"])
        XCTAssertEqual(pair.alice.insights.events(in: .connection).first { $0.name == "muted" }?.callSid, caller.sid)
    }

    func testMuteOnlyTakesEffectWhileConnected() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        let delegate = RecordingCallDelegate()
        // Never answered: still connecting or ringing.
        pair.notifications.onInvite.withLock { $0 = { _ in } }
        let ringing = pair.alice.connect(to: pair.bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 1), [.ringing])
        ringing.isMuted = true
        ringing.isOnHold = true
        ringing.disconnect()
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .disconnected(nil)])
        XCTAssertFalse(ringing.isMuted, "muting a call that is not connected has no effect")
        XCTAssertFalse(ringing.isOnHold)
        ringing.isMuted = true
        PollingWait.sleep(0)  // any queued action has run
        XCTAssertFalse(ringing.isMuted, "nor on a disconnected call")
        let names = pair.alice.insights.events(in: .connection).map(\.name)
        XCTAssertFalse(names.contains("muted") || names.contains("hold"), "\(names)")
    }

    func testHoldReInvitesSendonlyStopsPlaybackAndUnholdRestoresIt() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller), callee = try XCTUnwrap(pair.callee)
        let aliceDevice = pair.alice.device, bobDevice = pair.bob.device
        XCTAssertGreaterThan(ConnectedCallPair.recordedLevel(of: aliceDevice, over: 0.5), audible, "alice hears bob")
        XCTAssertGreaterThan(ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.5), audible, "bob hears alice")

        caller.isOnHold = true
        // Bob's side answers the re-INVITE: his offer/answer result says he may only receive.
        XCTAssertTrue(PollingWait.until(timeout: 5) {
            (try? ConnectedCallPair.onCore(callee) { $0?.negotiated?.direction }) == .recvonly
        }, "the re-INVITE offered sendonly")
        XCTAssertTrue(caller.isOnHold)
        _ = ConnectedCallPair.recordedLevel(of: aliceDevice, over: 0.3)
        XCTAssertLessThan(ConnectedCallPair.recordedLevel(of: aliceDevice, over: 0.5), silent, "alice plays nothing on hold")
        XCTAssertLessThan(ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.5), silent, "alice sends silence on hold")

        caller.isOnHold = false
        XCTAssertTrue(PollingWait.until(timeout: 5) {
            (try? ConnectedCallPair.onCore(callee) { $0?.negotiated?.direction }) == .sendrecv
        }, "the unhold re-INVITE offered sendrecv")
        XCTAssertFalse(caller.isOnHold)
        _ = ConnectedCallPair.recordedLevel(of: aliceDevice, over: 0.3)
        XCTAssertGreaterThan(ConnectedCallPair.recordedLevel(of: aliceDevice, over: 0.5), audible, "alice hears bob again")
        XCTAssertGreaterThan(ConnectedCallPair.recordedLevel(of: bobDevice, over: 0.5), audible, "bob hears alice again")
        XCTAssertEqual(caller.state, .connected)
        XCTAssertEqual(pair.callerDelegate.callbacks, [.ringing, .connected], "hold is not a reconnect")

        let names = pair.alice.insights.events(in: .connection).map(\.name)
        XCTAssertEqual(names.filter { $0 == "hold" || $0 == "unhold" }, ["hold", "unhold"])
        let signaling = pair.alice.insights.events(in: .signalingState).map(\.name)
        XCTAssertEqual(signaling.suffix(4), ["have-local-offer", "stable", "have-local-offer", "stable"])
    }
}
