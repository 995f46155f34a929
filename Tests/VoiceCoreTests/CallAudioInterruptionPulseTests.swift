import Foundation
import VoiceMedia
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Seed 004's scenarios on Linux, on a real sound server: alice's call plays and records through
/// ALSA's `pulse` PCM on a PulseAudio daemon of the test's own (a null sink `speaker` recorded by
/// `parec`, a null sink `mic` fed by `paplay`). Rows A (the server is killed and restarted) runs
/// on the real daemon only; rows B–E add errors libasound cannot be made to produce here (an
/// unplugged device, a busy one, a suspend, an xrun storm), injected in place of libasound's
/// and recovered by the real `snd_pcm_recover` on the real `pulse` PCM.
final class CallAudioInterruptionPulseTests: XCTestCase {
    private var pulse: PulseAudioServer?
    private var call: InterruptionCall?
    private var speaker: PulseRecording?

    override func setUpWithError() throws {
        try requirePulseAudio()
        let pulse = try PulseAudioServer()
        self.pulse = pulse
        try startSound(pulse)
        call = try InterruptionCall()
    }

    override func tearDown() {
        call?.shutdown()
        pulse?.stop()
        super.tearDown()
    }

    /// Starts (or restarts) the daemon, the microphone's feed and the speaker's recorder.
    private func startSound(_ pulse: PulseAudioServer) throws {
        try pulse.start()
        try pulse.play(InterruptionCall.aliceSignal.looped(seconds: 120))
        speaker = try pulse.record()
    }

    private func pulseDevice(_ faults: ALSAFaultInjection = ALSAFaultInjection()) throws -> ALSAAudioDevice {
        try ALSAAudioDevice(configuration: .init(captureDevice: "pulse", playbackDevice: "pulse"), faults: faults)
    }

    /// Both ways: bob hears alice's microphone, and alice's speaker plays bob.
    private func assertAudioBothWays(_ when: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let call = try XCTUnwrap(call)
        let speaker = try XCTUnwrap(self.speaker)
        let toBob = call.bobHearsAlice()
        XCTAssertGreaterThan(toBob.correlation, 0.8, "\(when): bob hears alice: \(toBob)", file: file, line: line)
        let toAlice = InterruptionCall.hearsBob(in: { speaker.samples })
        XCTAssertGreaterThan(toAlice.correlation, 0.8, "\(when): alice's speaker plays bob: \(toAlice)", file: file, line: line)
    }

    func testA_TheSoundServerIsKilledAndRestartedAndTheCallResumesByItself() throws {
        let call = try XCTUnwrap(call), pulse = try XCTUnwrap(pulse)
        try call.connect(device: try pulseDevice())
        try assertAudioBothWays("before")

        let killed = Date()
        pulse.kill()
        XCTAssertEqual(call.delegate.wait(for: 3, timeout: 5), [.ringing, .connected, .audioInterrupted])
        let noticed = try XCTUnwrap(call.delegate.time(of: .audioInterrupted)).timeIntervalSince(killed)
        let interruption = try XCTUnwrap(call.delegate.lastInterruption.withLockedValue { $0 })
        XCTAssertTrue(interruption.error.isTransient, "\(interruption.error)")
        XCTAssertTrue(call.caller?.isAudioInterrupted ?? false)

        // Three seconds without a sound server: the call stays up and keeps sending (silence).
        let packets = call.bobPacketsReceived
        Thread.sleep(forTimeInterval: 3)
        XCTAssertGreaterThan(call.bobPacketsReceived, packets + 100, "alice keeps sending while interrupted")
        XCTAssertLessThan(call.bobPeak(seconds: 0.5), 200, "and what she sends is silence")
        XCTAssertEqual(call.caller?.state, .connected)

        try pulse.start()
        let back = Date()
        try pulse.play(InterruptionCall.aliceSignal.looped(seconds: 120))
        speaker = try pulse.record()
        XCTAssertEqual(call.delegate.wait(for: 4, timeout: 5).last, .audioResumed)
        let resumed = try XCTUnwrap(call.delegate.time(of: .audioResumed)).timeIntervalSince(back)
        print("pulse killed: interruption noticed after \(Int(noticed * 1000)) ms; audio resumed \(Int(resumed * 1000)) ms after the server was back")
        XCTAssertLessThan(resumed, 1.0, "audio resumes within a second of the server being back")
        XCTAssertFalse(call.caller?.isAudioInterrupted ?? true)
        try assertAudioBothWays("after")

        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected, .audioInterrupted, .audioResumed], "no 53405, no reconnecting")
        XCTAssertEqual(call.calleeDelegate.callbacks, [.connected], "bob saw nothing")
        XCTAssertEqual(call.delegate.interruptionStateAgreed.withLockedValue { $0 }, [true, true], "Call.audioInterruption agrees with each callback")
        XCTAssertEqual(call.interruptionInsights, ["began", "ended"])
        XCTAssertEqual(InterruptionCall.stats(call.caller)?.audioDevice.interruptions, 1)
    }
}
