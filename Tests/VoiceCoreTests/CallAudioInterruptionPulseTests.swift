import VoiceEmbedded
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
        // Up to three two-second windows: a sound server's streams take a moment to start.
        var toBob = call.bobHearsAlice()
        for _ in 0..<2 where toBob.score <= 0.8 { toBob = call.bobHearsAlice() }
        XCTAssertGreaterThan(toBob.score, 0.8, "\(when): bob hears alice: \(toBob)", file: file, line: line)
        var toAlice = InterruptionCall.hearsBob(in: { speaker.samples })
        for _ in 0..<2 where toAlice.score <= 0.8 { toAlice = InterruptionCall.hearsBob(in: { speaker.samples }) }
        XCTAssertGreaterThan(toAlice.score, 0.8, "\(when): alice's speaker plays bob: \(toAlice)", file: file, line: line)
    }

    func testA_TheSoundServerIsKilledAndRestartedAndTheCallResumesByItself() throws {
        let call = try XCTUnwrap(call), pulse = try XCTUnwrap(pulse)
        try call.connect(device: try pulseDevice())
        try assertAudioBothWays("before")

        let killed = Date()
        pulse.kill()
        XCTAssertEqual(call.delegate.wait(for: 3, timeout: 5), [.ringing, .connected, .audioInterrupted])
        let noticed = try XCTUnwrap(call.delegate.time(of: .audioInterrupted)).timeIntervalSince(killed)
        let interruption = try XCTUnwrap(call.delegate.lastInterruption.withLock { $0 })
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
        XCTAssertEqual(call.delegate.interruptionStateAgreed.withLock { $0 }, [true, true], "Call.audioInterruption agrees with each callback")
        XCTAssertEqual(call.interruptionInsights, ["began", "ended"])
        XCTAssertEqual(InterruptionCall.stats(call.caller)?.audioDevice.interruptions, 1)
    }

    func testB_AnUnpluggedHeadsetInterruptsTheCallUntilPluggedBack() throws {
        let call = try XCTUnwrap(call)
        let faults = ALSAFaultInjection()
        try call.connect(device: try pulseDevice(faults))
        try assertAudioBothWays("before")

        faults.failOpens(errno: ENODEV)  // gone until plugged back
        faults.failTransfers(errno: ENODEV, count: 1, capture: true)
        XCTAssertEqual(call.delegate.wait(for: 3, timeout: 5).last, .audioInterrupted)
        let interruption = try XCTUnwrap(call.delegate.lastInterruption.withLock { $0 })
        XCTAssertEqual(interruption.error.code, -ENODEV)
        XCTAssertTrue(interruption.capture)
        let packets = call.bobPacketsReceived
        Thread.sleep(forTimeInterval: 2)
        XCTAssertGreaterThan(call.bobPacketsReceived, packets + 50, "alice keeps sending while interrupted")
        XCTAssertGreaterThan(faults.opens, 3, "the device was tried again, with backoff")

        let plugged = Date()
        faults.clearOpenFailures()
        XCTAssertEqual(call.delegate.wait(for: 4, timeout: 5).last, .audioResumed)
        let resumed = try XCTUnwrap(call.delegate.time(of: .audioResumed)).timeIntervalSince(plugged)
        XCTAssertLessThan(resumed, 1.0, "back within a second of being plugged in")
        try assertAudioBothWays("after")
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected, .audioInterrupted, .audioResumed])
        XCTAssertEqual(call.calleeDelegate.callbacks, [.connected])
    }

    func testB_TheAppMovesTheCallToAnotherDeviceWhileTheHeadsetIsGone() throws {
        let call = try XCTUnwrap(call)
        let faults = ALSAFaultInjection()
        try call.connect(device: try pulseDevice(faults))
        faults.failOpens(errno: ENODEV)
        faults.failTransfers(errno: ENODEV, count: 1, capture: false)
        XCTAssertEqual(call.delegate.wait(for: 3, timeout: 5).last, .audioInterrupted)
        XCTAssertEqual(call.delegate.lastInterruption.withLock { $0 }?.render, true)

        // The app switches to the laptop's own device (a buffer device here).
        let laptop = BufferAudioDevice(captureSamples: InterruptionCall.aliceSignal, loop: true)
        let switched = DispatchSemaphore(value: 0)
        let outcome = Locked<AudioDeviceError??>(nil)
        call.caller?.switchAudioDevice(to: laptop) { error in
            outcome.withLock { $0 = .some(error) }
            switched.signal()
        }
        XCTAssertEqual(switched.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(outcome.withLock { $0 }, .some(nil), "the switch succeeded")
        XCTAssertEqual(call.delegate.wait(for: 4, timeout: 5).last, .audioResumed, "the interruption ends with the switch")
        XCTAssertGreaterThan(call.bobHearsAlice().score, 0.8, "bob hears alice's new device")
        let toAlice = InterruptionCall.hearsBob(in: { laptop.recordedSamples })
        XCTAssertGreaterThan(toAlice.score, 0.8, "alice's new device plays bob: \(toAlice)")
        XCTAssertEqual(call.calleeDelegate.callbacks, [.connected])
        faults.clearOpenFailures()
        Thread.sleep(forTimeInterval: 0.6)
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected, .audioInterrupted, .audioResumed], "the old device is left alone")
    }

    func testC_ABusyDeviceAtCallStartStillConnectsAndAudioStartsWhenItFrees() throws {
        let call = try XCTUnwrap(call)
        let faults = ALSAFaultInjection()
        faults.failOpens(errno: EBUSY)
        try call.connect(device: try pulseDevice(faults), expecting: [.ringing, .connected, .audioInterrupted])
        XCTAssertEqual(call.delegate.lastInterruption.withLock { $0 }?.error.code, -EBUSY)
        XCTAssertTrue(call.caller?.isAudioInterrupted ?? false)
        let packets = call.bobPacketsReceived
        Thread.sleep(forTimeInterval: 2)
        XCTAssertGreaterThan(call.bobPacketsReceived, packets + 50, "the call sends silence while it waits for the device")
        XCTAssertEqual(call.calleeDelegate.callbacks, [.connected], "no 53405 on bob's side")

        faults.clearOpenFailures()
        XCTAssertEqual(call.delegate.wait(for: 4, timeout: 5).last, .audioResumed)
        try assertAudioBothWays("once the device is free")
    }

    func testD_ASuspendIsRecoveredInPlaceAndCounted() throws {
        let call = try XCTUnwrap(call)
        let faults = ALSAFaultInjection()
        try call.connect(device: try pulseDevice(faults))
        faults.failTransfers(errno: ESTRPIPE, count: 1, capture: true)
        faults.failTransfers(errno: ESTRPIPE, count: 1, capture: false)
        XCTAssertTrue(PollingWait.until(timeout: 5) { (InterruptionCall.stats(call.caller)?.audioDevice.suspendsRecovered ?? 0) >= 2 })
        try assertAudioBothWays("after the resume")
        XCTAssertEqual(InterruptionCall.stats(call.caller)?.audioDevice.interruptions, 0)
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected], "a suspend is no interruption")
    }

    func testE_AnXrunStormIsRecoveredCountedAndNotReportedAsAnInterruption() throws {
        let call = try XCTUnwrap(call)
        let faults = ALSAFaultInjection()
        try call.connect(device: try pulseDevice(faults))
        // 30 xruns each way over about a second and a half: a starved CPU.
        faults.failTransfers(errno: EPIPE, count: 30, every: 5, capture: true)
        faults.failTransfers(errno: EPIPE, count: 30, every: 5, capture: false)
        XCTAssertTrue(PollingWait.until(timeout: 10) { faults.pendingTransferFaults(capture: true) + faults.pendingTransferFaults(capture: false) == 0 })
        _ = PollingWait.until(timeout: 2) {  // the stats are published a few times a second
            let device = InterruptionCall.stats(call.caller)?.audioDevice
            return min(device?.captureXruns ?? 0, device?.playbackXruns ?? 0) >= 30
        }
        let device = try XCTUnwrap(InterruptionCall.stats(call.caller)?.audioDevice)
        XCTAssertGreaterThanOrEqual(device.captureXruns, 30, "\(device)")
        XCTAssertGreaterThanOrEqual(device.playbackXruns, 30, "\(device)")
        XCTAssertEqual(device.interruptions, 0)
        try assertAudioBothWays("after the storm")
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected], "xruns are no interruption")
        XCTAssertEqual(call.calleeDelegate.callbacks, [.connected])
    }

    func testTheSinkVolumeTurnedDownIsALowOSOutputVolumeLevelUntilTurnedUpAgain() throws {
        let call = try XCTUnwrap(call), pulse = try XCTUnwrap(pulse)
        let events = CallQualityEventRecorder()
        call.delegate.onQualityEvent.withLock { $0 = { events.append($0) } }
        let device = try pulseDevice()
        XCTAssertEqual(device.outputVolume.map { ($0 * 100).rounded() }, 100, "the pulse PCM's mixer is the default sink's volume")
        try call.connect(device: device)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertFalse(events.all.contains(.lowOSOutputVolumeLevel(.trigger)))

        try pulse.setSpeakerVolume(percent: 15)
        XCTAssertTrue(PollingWait.until(timeout: 5) { events.all.contains(.lowOSOutputVolumeLevel(.trigger)) }, "\(events.all)")
        XCTAssertEqual(device.outputVolume.map { ($0 * 100).rounded() }, 15)
        try pulse.setSpeakerVolume(percent: 60)
        XCTAssertTrue(PollingWait.until(timeout: 5) { events.all.last == .lowOSOutputVolumeLevel(.recover) }, "\(events.all)")
        XCTAssertEqual(events.all.filter { if case .lowOSOutputVolumeLevel = $0 { true } else { false } },
                       [.lowOSOutputVolumeLevel(.trigger), .lowOSOutputVolumeLevel(.recover)])
    }
}
