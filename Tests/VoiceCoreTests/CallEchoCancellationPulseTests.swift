import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Echo cancellation on the real stack: alice's call plays and records through ALSA's `pulse`
/// PCM on a PulseAudio daemon of the test's own, whose `module-loopback` carries what alice's
/// speaker plays back into her microphone 20 ms late (a real echo path, with a sound server's
/// own buffering and jitter), mixed with a near-end talker played into the microphone. Bob is a
/// buffer device that talks and records. Real time.
final class CallEchoCancellationPulseTests: XCTestCase {
    private var pulse: PulseAudioServer?
    private var clients: [TestVoiceClient] = []

    override func setUpWithError() throws {
        try requirePulseAudio()
        let pulse = try PulseAudioServer()
        self.pulse = pulse
        try pulse.start()
        try pulse.loopSpeakerIntoMicrophone(latencyMilliseconds: 20, volumePercent: 70)
    }

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        pulse?.stop()
        super.tearDown()
    }

    func testBobHearsHisOwnVoiceAtLeast20dBLessWithEchoCancellationAndAliceStillGetsThrough() throws {
        let pulse = try XCTUnwrap(pulse)
        let bobVoice = RoomSignals.mix(RoomSignals.speech(TestSignals.speechLike(seconds: 6, seed: 1), atActiveLevel: -26))
        let aliceVoice = CallEchoCancellationTests.aliceVoice
        let alice = try TestVoiceClient("alice", signal: [])
        let bob = try TestVoiceClient("bob", signal: bobVoice)
        clients = [alice, bob]
        let device = try ALSAAudioDevice(configuration: .init(captureDevice: "pulse", playbackDevice: "pulse"))
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate(), delegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let call = alice.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": bob.address]
                builder.delegateQueue = delegate.queue
                builder.audioDevice = device
                builder.audioProcessing = AudioProcessingOptions(echoCancellation: false)
            },
            delegate: delegate)
        defer {
            call.disconnect()
            delegate.waitForEnd(timeout: 5)
        }
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        XCTAssertEqual(call.audioProcessing, AudioProcessingOptions(echoCancellation: false))

        func bobHears(seconds: Double) -> [Int16] {
            bob.device.clearRecording()
            let count = Int(seconds * 48_000)
            _ = PollingWait.until(timeout: seconds + 10) { bob.device.recordedSamples.count >= count }
            return Array(bob.device.recordedSamples.prefix(count))
        }
        Thread.sleep(forTimeInterval: 1)
        let echoed = bobHears(seconds: 5)
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: bobVoice, in: echoed).score, 0.6, "bob's voice comes back through the room")

        call.audioProcessing = .all
        Thread.sleep(forTimeInterval: 6)
        // Three windows of 3 s: a sound server's streams move against each other now and then
        // (scheduling, not acoustics), and the canceller takes a moment to follow; the median
        // window is what bob mostly hears.
        let off = RoomSignals.level(echoed.map(Double.init))
        let windows = (0..<3).map { _ in RoomSignals.level(bobHears(seconds: 3).map(Double.init)) }
        let on = windows.sorted()[1]
        if let status = SharedAudioDeviceRegistry.shared.existingHub(for: device)?.processing.status {
            print("alice's processing: \(status); ALSA latency \(device.latency.map { "\($0)" } ?? "-")")
        }
        print("through PulseAudio: bob hears his own voice at \(String(format: "%.1f", off)) dBFS without echo cancellation, \(windows.map { String(format: "%.1f", $0) }) dBFS with it")
        // 20 dB here: the 25 dB requirement is held in virtual time, where the path is exact
        // (`CallEchoCancellationTests`, 37 dB); through a real sound server on a shared machine
        // the median window gave 29–32 dB in most runs and 24.9 in one CI run. Without the
        // canceller the difference is 0.
        XCTAssertGreaterThanOrEqual(off - on, 20, "echo cancellation takes \(off - on) dB off bob's own voice (median window)")
        let stats = try XCTUnwrap(InterruptionCall.stats(call))
        XCTAssertTrue(stats.audioProcessing.echoCancellation)
        XCTAssertNotNil(stats.audioProcessing.echoReturnLossEnhancement)
        XCTAssertNotNil(device.latency, "ALSA reports the pulse PCM's delays")

        // Alice talks over the echo: bob hears her.
        try pulse.play(aliceVoice.looped(seconds: 60))
        Thread.sleep(forTimeInterval: 2)
        let heard = bobHears(seconds: 5)
        let similarity = SpectralSimilarity(playedInALoop: aliceVoice, in: heard)
        let own = SpectralSimilarity(playedInALoop: bobVoice, in: heard)
        print("bob hears alice: \(similarity); his own voice: \(own); level \(RoomSignals.level(heard.map(Double.init)))")
        XCTAssertGreaterThan(similarity.score, 0.8, "bob hears alice: \(similarity)")
        XCTAssertLessThan(own.score, similarity.score - 0.2, "and not his own voice: \(own)")
    }
}
