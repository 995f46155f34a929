import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Ringback while the callee rings, silence of it once answered, and a busy tone after a
/// rejection, all heard on the caller's own device (a buffer device that records what it plays).
final class CallProgressToneTests: VirtualTimeTestCase {

    private func tones(_ configuration: inout VoiceClientConfiguration) {
        var tones = CallProgressTones.northAmerica
        tones.busyDuration = .seconds(1)
        configuration.progressTones = tones
    }

    /// The amplitudes of `frequencies` in the next half second `device` plays.
    private func heard(_ frequencies: [Double], on device: BufferAudioDevice) -> [Double] {
        device.clearRecording()
        _ = PollingWait.until(timeout: 5) { device.recordedSamples.count >= 24_000 }
        let window = device.recordedSamples.prefix(24_000)
        return frequencies.map { ToneAmplitude.of($0, in: window) }
    }

    func testRingbackPlaysWhileTheCalleeRingsAndStopsWhenItAnswers() throws {
        let alice = try TestVoiceClient("alice", world: world, configure: tones)
        let bob = try TestVoiceClient("bob", signal: ConnectedCallPair.tone(660), world: world)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 1), [.ringing])
        let ringing = heard([440, 480, 620], on: alice.device)
        XCTAssertGreaterThan(min(ringing[0], ringing[1]), 1_500, "440 + 480 Hz while it rings: \(ringing)")
        XCTAssertLessThan(ringing[2], 200, "not the busy tone: \(ringing)")

        _ = PollingWait.until(timeout: 5) { notifications.invites.withLock { !$0.isEmpty } }
        let invite = try XCTUnwrap(notifications.invites.withLock { $0.first })
        let bobDelegate = RecordingCallDelegate()
        _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        PollingWait.sleep(0.3)
        let answered = heard([440, 480, 660], on: alice.device)
        XCTAssertLessThan(max(answered[0], answered[1]), 200, "no ringback once answered: \(answered)")
        XCTAssertGreaterThan(answered[2], 2_000, "bob instead: \(answered)")
        call.disconnect()
        delegate.waitForEnd()
    }

    func testARejectedCallPlaysTheBusyToneForItsDuration() throws {
        let alice = try TestVoiceClient("alice", world: world, configure: tones)
        let bob = try TestVoiceClient("bob", world: world)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        notifications.onInvite.withLock { $0 = { $0.reject() } }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd().last, .failed(.busyEverywhere))
        XCTAssertEqual(call.details.endCause, .denied)
        let busy = heard([480, 620, 440], on: alice.device)
        XCTAssertGreaterThan(min(busy[0], busy[1]), 700, "480 + 620 Hz, half the time on: \(busy)")
        XCTAssertLessThan(busy[2], 200, "not ringback: \(busy)")
        XCTAssertTrue(PollingWait.until(timeout: 3) { !alice.device.isRendering }, "the busy tone ends after its duration")
    }
}
