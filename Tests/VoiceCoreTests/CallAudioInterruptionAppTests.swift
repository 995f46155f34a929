import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Seed 004's row F on Linux: the app itself interrupts the call's audio. With
/// `audioDevice.isEnabled = false` the tracks are off (silence sent, nothing played) and come
/// back with `true`; in the "Hold & Accept" sequence the first call is held while a second one is
/// accepted and ended, and the held call's audio resumes both ways.
final class CallAudioInterruptionAppTests: VirtualTimeTestCase {

    func testF_DisablingTheDeviceTurnsBothTracksOffAndEnablingItTurnsThemBackOn() throws {
        let call = try InterruptionCall()
        defer { call.shutdown() }
        try call.connect(device: call.alice.device)
        XCTAssertGreaterThan(call.bobHearsAlice().score, 0.8)

        call.alice.device.isEnabled = false
        PollingWait.sleep(0.3)
        XCTAssertLessThan(call.bobPeak(), 100, "bob hears silence from alice")
        call.alice.device.clearRecording()
        PollingWait.sleep(1)
        XCTAssertLessThan(call.alice.device.recordedSamples.map { abs(Int($0)) }.max() ?? 0, 100, "alice plays nothing")

        call.alice.device.isEnabled = true
        PollingWait.sleep(0.3)
        let toBob = call.bobHearsAlice()
        XCTAssertGreaterThan(toBob.score, 0.8, "bob hears alice again: \(toBob)")
        let toAlice = InterruptionCall.hearsBob(in: { call.alice.device.recordedSamples })
        XCTAssertGreaterThan(toAlice.score, 0.8, "alice hears bob again: \(toAlice)")
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected], "the app's own switch is no device interruption")
    }

    func testF_HoldAndAcceptThenTheSecondCallEndsAndTheHeldCallResumes() throws {
        let call = try InterruptionCall()
        let carol = try TestVoiceClient("carol", signal: TestSignals.multiTone([(900, 5_000), (2_000, 3_000)], seconds: 1), world: world)
        defer {
            call.shutdown()
            carol.client.shutdown()
        }
        try call.connect(device: call.alice.device)
        let aliceNotifications = call.alice.listen()
        let invites = Locked<[CallInvite]>([])
        aliceNotifications.onInvite.withLock { $0 = { invite in invites.withLock { $0.append(invite) } } }

        // Carol calls; alice holds bob and accepts carol.
        let carolDelegate = RecordingCallDelegate()
        _ = carol.connect(to: call.alice.address, delegate: carolDelegate)
        XCTAssertTrue(PollingWait.until(timeout: 10) { !invites.withLock { $0 }.isEmpty })
        let first = try XCTUnwrap(call.caller)
        first.isOnHold = true
        XCTAssertTrue(PollingWait.until(timeout: 5) { first.isOnHold })
        let secondDelegate = RecordingCallDelegate()
        let invite = try XCTUnwrap(invites.withLock { $0.first })
        let second = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = secondDelegate.queue }, delegate: secondDelegate)
        XCTAssertEqual(secondDelegate.wait(for: 1), [.connected])
        XCTAssertEqual(carolDelegate.wait(for: 2), [.ringing, .connected])
        carol.device.clearRecording()
        XCTAssertTrue(PollingWait.until(timeout: 10) { carol.device.recordedSamples.count >= 96_000 })
        let toCarol = SpectralSimilarity(playedInALoop: InterruptionCall.aliceSignal, in: carol.device.recordedSamples)
        XCTAssertGreaterThan(toCarol.score, 0.8, "carol hears alice: \(toCarol)")
        XCTAssertLessThan(call.bobPeak(), 100, "bob, held, hears nothing of it")

        // Carol hangs up; alice resumes bob, whose audio comes back both ways.
        second.disconnect()
        XCTAssertEqual(secondDelegate.waitForEnd(), [.connected, .disconnected(nil)])
        first.isOnHold = false
        XCTAssertTrue(PollingWait.until(timeout: 5) { !first.isOnHold })
        PollingWait.sleep(0.5)
        let toBob = call.bobHearsAlice()
        XCTAssertGreaterThan(toBob.score, 0.8, "bob hears alice after the resume: \(toBob)")
        let toAlice = InterruptionCall.hearsBob(in: { call.alice.device.recordedSamples })
        XCTAssertGreaterThan(toAlice.score, 0.8, "alice hears bob after the resume: \(toAlice)")
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected])
        XCTAssertEqual(call.calleeDelegate.callbacks, [.connected])
    }
}
