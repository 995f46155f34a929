import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceTestAudio
import VoiceMediaTypes

/// One client's single audio device serving two calls at once: both peers hear its capture, it
/// plays both peers, hold takes one call out of the mix, and hanging up one call leaves the other.
final class CallSharedAudioDeviceTests: VirtualTimeTestCase {

    /// What alice's device captures (looped): two tones neither peer sends.
    private let aliceSignal = TestSignals.multiTone([(440, 5_000), (1_250, 3_000)], seconds: 1)
    private let bobTone = 660.0
    private let carolTone = 1_500.0
    /// A tone nobody sends, to show an absent tone reads low.
    private let absentTone = 1_000.0
    /// Tones are sent at amplitude 8000; above this one is clearly in the mix, below `absent` it is not.
    private let present = 2_000.0
    private let absent = 400.0

    func testOneDeviceServesTwoCallsAndTheSecondOutlivesTheFirst() throws {
        let alice = try TestVoiceClient("alice", signal: aliceSignal, world: world)
        let bob = try TestVoiceClient("bob", signal: ConnectedCallPair.tone(bobTone), world: world)
        let carol = try TestVoiceClient("carol", signal: ConnectedCallPair.tone(carolTone), world: world)
        defer { [alice, bob, carol].forEach { $0.client.shutdown() } }
        // The first call runs on the client's device, the second names the same device in its options.
        let toBob = try call(from: alice, to: bob)
        let toCarol = try call(from: alice, to: carol, device: alice.device)
        weak let hub = SharedAudioDeviceRegistry.shared.hub(for: alice.device)
        XCTAssertEqual(hub?.capturingPortCount, 2, "both calls capture from the one device")
        XCTAssertEqual(hub?.renderingPortCount, 2, "both calls play on it")

        assertHearsAlice(bob, "bob")
        assertHearsAlice(carol, "carol")
        var heard = tones(recordedBy: alice.device) { self.plays($0, bob: true, carol: true) }
        XCTAssertGreaterThan(heard[bobTone] ?? 0, present, "alice hears bob: \(heard)")
        XCTAssertGreaterThan(heard[carolTone] ?? 0, present, "alice hears carol: \(heard)")
        XCTAssertLessThan(heard[absentTone] ?? .infinity, absent, "\(heard)")

        toCarol.caller.disconnect()
        XCTAssertEqual(toCarol.delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertTrue(PollingWait.until(timeout: 5) { hub?.capturingPortCount == 1 && hub?.renderingPortCount == 1 })
        XCTAssertEqual(toBob.caller.state, .connected)
        assertHearsAlice(bob, "bob, after carol's call ended")
        heard = tones(recordedBy: alice.device) { self.plays($0, bob: true, carol: false) }
        XCTAssertGreaterThan(heard[bobTone] ?? 0, present, "alice still hears bob: \(heard)")
        XCTAssertLessThan(heard[carolTone] ?? .infinity, absent, "carol is gone from the mix: \(heard)")

        toBob.caller.disconnect()
        XCTAssertEqual(toBob.delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertTrue(PollingWait.until(timeout: 5) { hub == nil }, "the hub goes with the last call")
        XCTAssertTrue(PollingWait.until(timeout: 5) { !alice.device.isCapturing && !alice.device.isRendering }, "the device stopped")
    }

    func testHoldTakesOnlyTheHeldCallOutOfTheMix() throws {
        let alice = try TestVoiceClient("alice", signal: aliceSignal, world: world)
        let bob = try TestVoiceClient("bob", signal: ConnectedCallPair.tone(bobTone), world: world)
        let carol = try TestVoiceClient("carol", signal: ConnectedCallPair.tone(carolTone), world: world)
        defer { [alice, bob, carol].forEach { $0.client.shutdown() } }
        let toBob = try call(from: alice, to: bob)
        let toCarol = try call(from: alice, to: carol)
        var heard = tones(recordedBy: alice.device) { self.plays($0, bob: true, carol: true) }
        XCTAssertGreaterThan(min(heard[bobTone] ?? 0, heard[carolTone] ?? 0), present, "both in the mix: \(heard)")

        toBob.caller.isOnHold = true
        XCTAssertTrue(PollingWait.until(timeout: 5) { toBob.caller.isOnHold })
        heard = tones(recordedBy: alice.device) { self.plays($0, bob: false, carol: true) }
        XCTAssertLessThan(heard[bobTone] ?? .infinity, absent, "the held call is not played: \(heard)")
        XCTAssertGreaterThan(heard[carolTone] ?? 0, present, "the other call still is: \(heard)")
        assertHearsAlice(carol, "carol, while bob is held")

        toBob.caller.isOnHold = false
        XCTAssertTrue(PollingWait.until(timeout: 5) { !toBob.caller.isOnHold })
        heard = tones(recordedBy: alice.device) { self.plays($0, bob: true, carol: true) }
        XCTAssertGreaterThan(min(heard[bobTone] ?? 0, heard[carolTone] ?? 0), present, "bob is back in the mix: \(heard)")
        toBob.caller.disconnect()
        toCarol.caller.disconnect()
        XCTAssertEqual(toCarol.delegate.waitForEnd().last, .disconnected(nil))
    }

    // MARK: - Helpers

    /// Places a call from `caller` to `callee` (who accepts it on its own device) and waits until both are connected.
    private func call(
        from caller: TestVoiceClient, to callee: TestVoiceClient, device: (any AudioDevice)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (caller: Call, callee: Call, delegate: RecordingCallDelegate) {
        let notifications = callee.listen()
        let calleeDelegate = RecordingCallDelegate()
        let accepted = LockedBox<Call?>(nil)
        notifications.onInvite.withLock {
            $0 = { invite in
                accepted.value = invite.accept(
                    options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let delegate = RecordingCallDelegate()
        let call = caller.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token(caller.client.configuration.identity)) { builder in
                builder.params = ["To": callee.address]
                builder.delegateQueue = delegate.queue
                builder.audioDevice = device
            },
            delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "no 53405 or any other failure", file: file, line: line)
        XCTAssertEqual(calleeDelegate.wait(for: 1), [.connected], file: file, line: line)
        return (call, try XCTUnwrap(accepted.value, file: file, line: line), delegate)
    }

    /// Asserts that what `peer` plays (two fresh seconds) is alice's captured signal.
    private func assertHearsAlice(_ peer: TestVoiceClient, _ who: String, file: StaticString = #filePath, line: UInt = #line) {
        peer.device.clearRecording()
        _ = PollingWait.until(timeout: 10) { peer.device.recordedSamples.count >= 96_000 }
        // Window by window: a loaded machine shifts a real-time call's timeline now and then.
        let alignment = SpectralSimilarity(playedInALoop: aliceSignal, in: peer.device.recordedSamples)
        XCTAssertGreaterThan(alignment.score, 0.8, "\(who) hears alice: \(alignment)", file: file, line: line)
    }

    /// The amplitude of each test tone in half a second of what `device` plays, taken again
    /// (up to `timeout`) until `settled` holds, so a change (hang-up, hold) has time to be heard.
    private func tones(
        recordedBy device: BufferAudioDevice, timeout: TimeInterval = 10, until settled: ([Double: Double]) -> Bool
    ) -> [Double: Double] {
        let deadline = Date().addingTimeInterval(timeout)
        var heard = tones(recordedBy: device)
        while !settled(heard), Date() < deadline { heard = tones(recordedBy: device) }
        return heard
    }

    /// Whether `heard` has exactly the peers' tones asked for (and never the absent one).
    private func plays(_ heard: [Double: Double], bob: Bool, carol: Bool) -> Bool {
        func level(_ tone: Double, _ wanted: Bool) -> Bool {
            let amplitude = heard[tone] ?? 0
            return wanted ? amplitude > present : amplitude < absent
        }
        return level(bobTone, bob) && level(carolTone, carol) && level(absentTone, false)
    }

    /// The amplitude of each test tone in half a second of what `device` plays from now on.
    private func tones(recordedBy device: BufferAudioDevice) -> [Double: Double] {
        device.clearRecording()
        _ = PollingWait.until(timeout: 10) { device.recordedSamples.count >= 24_000 }
        let window = device.recordedSamples.prefix(24_000)
        var amplitudes: [Double: Double] = [:]
        for tone in [bobTone, carolTone, absentTone] { amplitudes[tone] = ToneAmplitude.of(tone, in: window) }
        return amplitudes
    }
}
