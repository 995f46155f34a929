import Foundation
import VoiceEmbedded
import VoiceTestAudio
import VoiceMedia
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Desktop devices on a real sound server (a PulseAudio daemon of the test's own, on null
/// sinks): alice's call runs on ``PulseAudioDevice`` (a libpulse stream per direction, no ALSA
/// plugin) while ``AudioDeviceMonitor`` watches the server. A headset is a null sink loaded
/// mid-call; plugging it in, picking it as the default and unplugging it are `pactl`
/// commands, as the desktop's settings would send them.
final class CallPulseAudioDeviceTests: XCTestCase {
    private var pulse: PulseAudioServer?
    private var call: InterruptionCall?
    private var speaker: PulseRecording?

    override func setUpWithError() throws {
        try requirePulseAudio()
        let pulse = try PulseAudioServer()
        self.pulse = pulse
        try pulse.start()
        try pulse.play(InterruptionCall.aliceSignal.looped(seconds: 120))
        speaker = try pulse.record()
        call = try InterruptionCall()
    }

    override func tearDown() {
        if let call, call.caller != nil {
            call.shutdown()
        } else {
            call?.alice.client.shutdown()
            call?.bob.client.shutdown()
        }
        pulse?.stop()
        super.tearDown()
    }

    /// Up to three two-second windows of `samples` (a recording) matched against bob's signal.
    private func hearsBob(in samples: @escaping () -> [Int16]) -> SpectralSimilarity {
        var heard = InterruptionCall.hearsBob(in: samples)
        for _ in 0..<2 where heard.score <= 0.8 { heard = InterruptionCall.hearsBob(in: samples) }
        return heard
    }

    /// Up to three two-second windows of what bob plays matched against alice's signal.
    private func bobHearsAlice(_ call: InterruptionCall) -> SpectralSimilarity {
        var heard = call.bobHearsAlice()
        for _ in 0..<2 where heard.score <= 0.8 { heard = call.bobHearsAlice() }
        return heard
    }

    /// The sound server's index of each stream the call plays or records (a stream moved keeps
    /// its index; one reopened gets a new one), and the device each is on.
    private func callStreams(_ pulse: PulseAudioServer) throws -> [String] {
        try ["sink-inputs", "source-outputs"].flatMap { kind in
            try pulse.output("pactl", ["list", kind]).components(separatedBy: "\n\n").filter { $0.contains("application.name = \"VoiceSDK\"") }
                .map { block in block.split(separator: "\n").first.map(String.init) ?? "" }
        }
    }

    func testACallOnTheDefaultDevicesFollowsTheUserToAPluggedInHeadsetAndBackWhenItIsUnplugged() throws {
        let call = try XCTUnwrap(call), pulse = try XCTUnwrap(pulse), speaker = try XCTUnwrap(speaker)
        let seen = RecordingDeviceMonitorDelegate()
        let monitor = try AudioDeviceMonitor(backend: .pulseAudio, delegate: seen)
        defer { monitor.stop() }
        let changes = monitor.changes
        XCTAssertEqual(monitor.backend, .pulseAudio)
        XCTAssertEqual(monitor.defaultDevice(.playback)?.name, "speaker")
        XCTAssertEqual(monitor.defaultDevice(.capture)?.name, "mic.monitor")
        let micMonitor = try XCTUnwrap(monitor.devices.first { $0.name == "mic.monitor" })
        XCTAssertTrue(micMonitor.isMonitor)
        XCTAssertEqual(micMonitor.id, "pulse:capture:mic.monitor")
        XCTAssertEqual(micMonitor.formats, [AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: 480)])

        try call.connect(device: try monitor.makeAudioDevice())
        XCTAssertGreaterThan(bobHearsAlice(call).score, 0.8, "bob hears the default source")
        XCTAssertGreaterThan(hearsBob(in: { speaker.samples }).score, 0.8, "the default sink plays bob")
        let roles = try pulse.output("pactl", ["list", "sink-inputs"]) + pulse.output("pactl", ["list", "source-outputs"])
        let calls = roles.components(separatedBy: "\n\n").filter { $0.contains("application.name = \"VoiceSDK\"") }
        XCTAssertEqual(calls.count, 2, roles)
        XCTAssertTrue(calls.allSatisfy { $0.contains("media.role = \"phone\"") }, "both streams are a call's: \(calls)")
        let streams = try callStreams(pulse)
        XCTAssertEqual(streams.count, 2, "\(streams)")

        // A headset is plugged in: its earpiece (a sink) and its microphone (standing in for it,
        // the monitor of a second sink, into which its wearer speaks).
        let earpiece = try pulse.addNullSink("headset")
        let microphone = try pulse.addNullSink("headset-mic")
        let added = seen.wait { $0.contains { if case .added(let device) = $0 { return device.name == "headset-mic.monitor" } else { return false } } }
        XCTAssertTrue(added, "the headset is reported: \(seen.changes)")
        XCTAssertTrue(seen.changes.contains { if case .added(let device) = $0 { return device.name == "headset" && device.direction == .playback } else { return false } })
        let headset = try pulse.record(sink: "headset")
        let wearer = try pulse.play(InterruptionCall.aliceSignal.looped(seconds: 60), sink: "headset-mic")
        try pulse.play([Int16](repeating: 0, count: 48_000 * 60), sink: "mic")

        // The user picks it as the default both ways: the call's streams move to it.
        let defaults = seen.changes.count
        try pulse.setDefault(sink: "headset")
        try pulse.setDefault(source: "headset-mic.monitor")
        XCTAssertTrue(seen.wait { $0.dropFirst(defaults).filter { if case .defaultChanged = $0 { return true } else { return false } }.count >= 2 }, "\(seen.changes)")
        XCTAssertEqual(monitor.defaultDevice(.playback)?.name, "headset")
        XCTAssertEqual(monitor.defaultDevice(.capture)?.name, "headset-mic.monitor")
        XCTAssertGreaterThan(hearsBob(in: { headset.samples }).score, 0.8, "the headset plays bob")
        XCTAssertGreaterThan(bobHearsAlice(call).score, 0.8, "bob hears the headset's microphone")
        XCTAssertEqual(try callStreams(pulse), streams, "the streams were moved, not reopened: no gap")

        // Unplugged: the server moves the call back to what is the default now.
        wearer.stop(grace: .milliseconds(100))
        try pulse.unloadModule(earpiece)
        try pulse.unloadModule(microphone)
        XCTAssertTrue(seen.wait { $0.contains { if case .removed(let device) = $0 { return device.name == "headset" } else { return false } } })
        XCTAssertTrue(seen.wait { _ in monitor.defaultDevice(.playback)?.name == "speaker" }, "\(seen.changes)")
        XCTAssertGreaterThan(hearsBob(in: { speaker.samples }).score, 0.8, "the speaker plays bob again")
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected], "no interruption at any step")
        XCTAssertEqual(call.calleeDelegate.callbacks, [.connected])

        // The sequence saw what the delegate saw, in the same order.
        monitor.stop()
        monitor.delegateQueue.sync {}
        let collected = DispatchSemaphore(value: 0)
        let box = LockedBox<[AudioDeviceChange]>([])
        Task {
            for await change in changes { box.value.append(change) }
            collected.signal()
        }
        XCTAssertEqual(collected.wait(timeout: .now() + 5), .success, "the sequence finishes at stop()")
        XCTAssertEqual(box.value, seen.changes)
    }

    func testACallOnANamedHeadsetThatIsUnpluggedGoesOnOnTheDefaultWithoutAnInterruption() throws {
        let call = try XCTUnwrap(call), pulse = try XCTUnwrap(pulse), speaker = try XCTUnwrap(speaker)
        let module = try pulse.addNullSink("headset")
        let headset = try pulse.record(sink: "headset")
        try call.connect(device: try PulseAudioDevice(playback: "headset"))
        XCTAssertGreaterThan(hearsBob(in: { headset.samples }).score, 0.8, "the headset plays bob")
        XCTAssertLessThan(speaker.samples.suffix(48_000).map { abs(Int($0)) }.max() ?? 0, 200, "and only the headset")

        try pulse.unloadModule(module)
        XCTAssertGreaterThan(hearsBob(in: { speaker.samples }).score, 0.8, "unplugged: the server moved the call to the default")
        XCTAssertGreaterThan(bobHearsAlice(call).score, 0.8)
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected], "no interruption")
    }

    func testTheSoundServerRestartsUnderACallAndTheMonitorSeesItsDevicesGoAndComeBack() throws {
        let call = try XCTUnwrap(call), pulse = try XCTUnwrap(pulse)
        let seen = RecordingDeviceMonitorDelegate()
        let monitor = try AudioDeviceMonitor(delegate: seen)
        defer { monitor.stop() }
        XCTAssertEqual(monitor.backend, .pulseAudio, "a sound server answers, so it is the backend")
        let listed = Set(monitor.devices.map(\.id))
        try call.connect(device: try PulseAudioDevice())

        pulse.kill()
        XCTAssertEqual(call.delegate.wait(for: 3, timeout: 5), [.ringing, .connected, .audioInterrupted])
        let interruption = try XCTUnwrap(call.delegate.lastInterruption.withLock { $0 })
        XCTAssertTrue(interruption.error.isTransient, "\(interruption.error)")
        XCTAssertTrue(seen.wait { _ in monitor.devices.isEmpty }, "the server's devices went with it: \(seen.changes)")
        XCTAssertEqual(Set(seen.changes.compactMap { if case .removed(let device) = $0 { return device.id } else { return nil } }), listed)

        try pulse.start()
        try pulse.play(InterruptionCall.aliceSignal.looped(seconds: 120))
        let speaker = try pulse.record()
        XCTAssertEqual(call.delegate.wait(for: 4, timeout: 5).last, .audioResumed)
        XCTAssertTrue(seen.wait(timeout: 5) { _ in Set(monitor.devices.map(\.id)) == listed }, "listed again: \(seen.changes)")
        XCTAssertEqual(monitor.defaultDevice(.playback)?.name, "speaker")
        XCTAssertGreaterThan(bobHearsAlice(call).score, 0.8)
        XCTAssertGreaterThan(hearsBob(in: { speaker.samples }).score, 0.8)
        XCTAssertEqual(call.delegate.callbacks, [.ringing, .connected, .audioInterrupted, .audioResumed])
    }

    /// The README's example: it returns a device on the headset plugged in while it waits.
    func testTheREADMEsExamplePicksTheHeadsetPluggedInWhileItWaits() async throws {
        let pulse = try XCTUnwrap(pulse)
        let monitor = try AudioDeviceMonitor()
        defer { monitor.stop() }
        let picked = Task { try await pickAHeadset(monitor: monitor) }
        // A watchdog: a change missed would leave the example waiting; cancelled, it returns the defaults.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            picked.cancel()
        }
        defer { watchdog.cancel() }
        while monitor.sequenceCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        _ = try pulse.addNullSink("headset")
        let device = try await picked.value
        XCTAssertEqual((device as? PulseAudioDevice)?.playbackDevice, "headset")
        XCTAssertNil((device as? PulseAudioDevice)?.captureDevice, "the microphone stays the default")
    }

    func testAMissingDeviceNoServerAndARefusedFormatAreTypedErrors() throws {
        let context = SilentDeviceContext()
        let missing = try PulseAudioDevice(capture: "no-such-source", playback: "no-such-sink")
        for capture in [false, true] {
            XCTAssertThrowsError(try capture ? missing.startCapturing(context: context) : missing.startRendering(context: context)) { error in
                let error = error as? AudioDeviceError
                XCTAssertEqual(error?.kind, .openFailed)
                XCTAssertEqual(error?.code, -ENOENT, "\(String(describing: error))")
                XCTAssertEqual(error?.isTransient, false, "a device that is not there does not come back by waiting")
            }
        }

        let nobody = try PulseAudioDevice(server: "unix:\(NSTemporaryDirectory())no-such-pulse-\(getpid())/native")
        XCTAssertThrowsError(try nobody.startRendering(context: context)) { error in
            let error = error as? AudioDeviceError
            XCTAssertEqual(error?.kind, .openFailed)
            XCTAssertEqual(error?.isTransient, true, "a sound server may come back: \(String(describing: error))")
        }
        XCTAssertThrowsError(try AudioDeviceMonitor(backend: .pulseAudio, server: "unix:/nonexistent/native")) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .openFailed)
        }

        for format in [AudioFormat(sampleRate: 48_000, channels: 3), AudioFormat(sampleRate: 4_000, channels: 1, framesPerBuffer: 40),
            AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: 4_800)]
        {
            XCTAssertThrowsError(try PulseAudioDevice(format: format)) { error in
                XCTAssertEqual((error as? AudioDeviceError)?.kind, .unsupportedFormat, "\(format)")
            }
        }

        let monitor = try AudioDeviceMonitor(backend: .pulseAudio)
        defer { monitor.stop() }
        let speaker = try XCTUnwrap(monitor.defaultDevice(.playback))
        XCTAssertThrowsError(try monitor.makeAudioDevice(capture: speaker)) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .openFailed, "a speaker is no microphone")
        }
        XCTAssertTrue(try monitor.makeAudioDevice(playback: speaker) is PulseAudioDevice)
    }

    func testTheOutputVolumeIsTheSinksAsTheUserSetsIt() throws {
        let pulse = try XCTUnwrap(pulse)
        let device = try PulseAudioDevice()
        XCTAssertEqual(try XCTUnwrap(device.outputVolume), 1, accuracy: 0.01, "a new sink is at 100 %")
        try pulse.setSpeakerVolume(percent: 20)
        XCTAssertEqual(try XCTUnwrap(device.outputVolume), 0.2, accuracy: 0.01)
        // Playing: the stream's own volume (the app's slider in the desktop's mixer) counts too.
        try device.startRendering(context: SilentDeviceContext())
        defer { device.stopRendering() }
        XCTAssertEqual(try XCTUnwrap(device.outputVolume), 0.2, accuracy: 0.01)
        let input = try XCTUnwrap(callStreams(pulse).first?.split(separator: "#").last.map(String.init), "the call's sink input")
        XCTAssertEqual(try pulse.run("pactl", ["set-sink-input-volume", input, "50%"]), 0)
        XCTAssertEqual(try XCTUnwrap(device.outputVolume), 0.1, accuracy: 0.01)
        XCTAssertEqual(try pulse.run("pactl", ["set-sink-mute", "speaker", "1"]), 0)
        XCTAssertEqual(device.outputVolume, 0, "muted")
        XCTAssertNil(try PulseAudioDevice(playback: "no-such-sink").outputVolume)
        pulse.kill()
        XCTAssertNil(device.outputVolume, "no server")
        try pulse.start()
        XCTAssertEqual(try XCTUnwrap(device.outputVolume), 1, accuracy: 0.01, "a new connection to the server that came back")
    }
}

/// Where ALSA's hints are the backend (no sound server asked): the PCMs every machine has.
final class AudioDeviceMonitorALSATests: XCTestCase {
    func testALSAsHintsListTheNullAndDefaultPCMsBothWays() throws {
        let monitor = try AudioDeviceMonitor(backend: .alsa)
        defer { monitor.stop() }
        XCTAssertEqual(monitor.backend, .alsa)
        for direction in AudioDeviceDirection.allCases {
            let null = try XCTUnwrap(monitor.devices.first { $0.name == "null" && $0.direction == direction }, "\(monitor.devices)")
            XCTAssertEqual(null.id, "alsa:\(direction.rawValue):null")
            XCTAssertFalse(null.label.isEmpty)
            XCTAssertEqual(monitor.defaultDevice(direction)?.name, "default")
        }
        let null = try XCTUnwrap(monitor.devices.first { $0.name == "null" && $0.direction == .playback })
        let device = try monitor.makeAudioDevice(playback: null)
        XCTAssertEqual((device as? ALSAAudioDevice)?.configuration.playbackDevice, "null")
    }
}

/// Records a monitor's changes.
final class RecordingDeviceMonitorDelegate: AudioDeviceMonitorDelegate, @unchecked Sendable {
    private let seen = Locked<[AudioDeviceChange]>([])

    var changes: [AudioDeviceChange] { seen.withLock { $0 } }

    func audioDeviceMonitor(_ monitor: AudioDeviceMonitor, didReport change: AudioDeviceChange) {
        seen.withLock { $0.append(change) }
    }

    /// Waits until `condition` holds for the changes seen so far.
    func wait(timeout: TimeInterval = 5, _ condition: @escaping ([AudioDeviceChange]) -> Bool) -> Bool {
        PollingWait.until(timeout: timeout) { condition(self.changes) }
    }
}

/// A device context that plays silence and drops what is captured.
private final class SilentDeviceContext: AudioDeviceContext {
    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {}
    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) { samples.update(repeating: 0) }
    func audioDevice(didReport event: AudioDeviceEvent) {}
}
