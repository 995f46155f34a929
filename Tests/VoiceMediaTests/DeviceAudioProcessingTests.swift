import CMallocCounter
import XCTest
@testable import VoiceMedia
import VoiceTestAudio
import VoiceTestKit

/// Voice processing in the shared-device hub, driven by hand period by period (virtual time):
/// the mix the hub plays is the echo reference, every port hears the processed microphone,
/// options change mid-call, odd periods are framed, and devices that cannot be processed fall
/// back to untouched audio.
final class DeviceAudioProcessingTests: XCTestCase {
    private let period = 480
    private let far = RoomSignals.mix(RoomSignals.speech(TestSignals.speechLike(seconds: 8, seed: 1), atActiveLevel: -26))

    /// Plays `sources` through ports of a hub on `device` and captures `microphone(k)` in period `k`,
    /// `periods` times; `between` runs before each period. Returns what a capturing port heard.
    private func drive(
        _ device: ManualAudioDevice, hub: SharedAudioDevice, sources: [[Int16]], periods: Int, framesPerPeriod: Int? = nil,
        microphone: (Int, [Int16]) -> [Int16], between: (Int) -> Void = { _ in }
    ) throws -> (heard: [Int16], played: [Int16]) {
        let frames = framesPerPeriod ?? period
        let renderers = sources.map { CollectingAudioContext(renderSource: $0) }
        var ports: [SharedAudioDevicePort] = []
        for context in renderers {
            let port = hub.makePort()
            try port.startRendering(context: context)
            ports.append(port)
        }
        let listener = CollectingAudioContext()
        let capturing = hub.makePort()
        try capturing.startCapturing(context: listener)
        var played: [Int16] = []
        for k in 0..<periods {
            between(k)
            let out = device.render(count: frames)
            played += out
            device.capture(microphone(k, out))
        }
        _ = (ports, capturing)
        return (listener.captured, played)
    }

    func testTheHubCancelsTheEchoOfTheMixItPlays() throws {
        let device = ManualAudioDevice(format: AudioFormat(framesPerBuffer: period))
        let hub = SharedAudioDevice(wrapping: device)
        XCTAssertNil(hub.processing.setOptions(.all))
        // Two calls on the device: the reference is their mix, as played.
        let second = RoomSignals.mix(RoomSignals.speech(TestSignals.speechLike(seconds: 8, seed: 9), atActiveLevel: -30))
        let mixed = zip(far, second).map { Int16(clamping: Int($0) + Int($1)) }
        let echo = EchoRoom().echo(of: mixed)
        let floor = RoomSignals.whiteNoise(count: far.count, level: -70)
        let periods = far.count / period
        let result = try drive(device, hub: hub, sources: [far, second], periods: periods) { k, _ in
            RoomSignals.mix(Array(echo[(k * self.period)..<((k + 1) * self.period)]), Array(floor[(k * self.period)..<((k + 1) * self.period)]))
        }
        XCTAssertEqual(Array(result.played.prefix(1_000)), Array(mixed.prefix(1_000)), "the device played the mix")
        let erle = RoomSignals.echoReturnLossEnhancement(microphone: echo, output: result.heard, from: 2 * 48_000)
        XCTAssertGreaterThanOrEqual(erle, 25)
        let status = hub.processing.status
        XCTAssertEqual(status.active, .all)
        XCTAssertNil(status.fallback)
        XCTAssertNotNil(status.echoReturnLossEnhancement, "metrics reach the status")
    }

    func testOptionsChangeDuringTheCall() throws {
        let device = ManualAudioDevice(format: AudioFormat(framesPerBuffer: period))
        let hub = SharedAudioDevice(wrapping: device)
        hub.processing.setOptions(AudioProcessingOptions(noiseSuppression: false, autoGainControl: false))
        let echo = EchoRoom().echo(of: far)
        let switchAt = 5 * 100  // periods: 5 s
        let result = try drive(device, hub: hub, sources: [far], periods: far.count / period, microphone: { k, _ in
            RoomSignals.mix(Array(echo[(k * self.period)..<((k + 1) * self.period)]))
        }, between: { k in
            if k == switchAt { hub.processing.setOptions(.none) }
        })
        let on = RoomSignals.echoReturnLossEnhancement(microphone: echo, output: result.heard, from: 2 * 48_000, to: 5 * 48_000)
        let off = RoomSignals.echoReturnLossEnhancement(microphone: echo, output: result.heard, from: 5 * 48_000 + 480)
        XCTAssertGreaterThanOrEqual(on, 25, "cancelled while on")
        XCTAssertLessThan(off, 1, "the echo goes through from the period after it was switched off")
        XCTAssertEqual(hub.processing.status.active, .none)
        XCTAssertEqual(hub.processing.options, .none)
    }

    func testDevicesDecideTheDefault() throws {
        let manual = SharedAudioDevice(wrapping: ManualAudioDevice(format: AudioFormat(framesPerBuffer: period)))
        XCTAssertEqual(manual.processing.options, .none, "software devices: untouched")
        let signal: [Int16] = (0..<period).map { Int16(truncatingIfNeeded: $0 * 37) }
        signal.withUnsafeBufferPointer { input in
            let output = manual.processing.processCapture(input)
            XCTAssertEqual(output.baseAddress, input.baseAddress, "nothing asked for: the buffer passes as it is")
        }
        XCTAssertEqual(BufferAudioDevice().defaultAudioProcessing, .none)
        XCTAssertEqual(NullAudioDevice().defaultAudioProcessing, .none)
        let alsa = try ALSAAudioDevice(name: "null")
        XCTAssertEqual(alsa.defaultAudioProcessing, .all)
        let hub = SharedAudioDevice(wrapping: alsa)
        XCTAssertEqual(hub.processing.options, .all, "a microphone and a speaker: everything on")
        XCTAssertNil(hub.processing.fallback)
        XCTAssertEqual(hub.makePort().defaultAudioProcessing, .all)
    }

    func testADeviceWhoseFormatTheProcessorCannotTakeFallsBackUntouched() throws {
        let format = AudioFormat(sampleRate: 44_100, framesPerBuffer: 441)
        let hub = SharedAudioDevice(wrapping: ManualAudioDevice(format: format))
        XCTAssertNil(hub.processing.status.fallback, "nothing asked for, nothing to report")
        let expected = AudioProcessingFallback.unsupportedFormat(capture: format, render: format)
        XCTAssertEqual(hub.processing.setOptions(.all), expected)
        XCTAssertEqual(hub.processing.status.fallback, expected)
        XCTAssertEqual(hub.processing.status.active, .none)
        let signal: [Int16] = (0..<441).map { Int16(truncatingIfNeeded: $0 * 91) }
        signal.withUnsafeBufferPointer { input in
            XCTAssertEqual(Array(hub.processing.processCapture(input)), signal, "audio untouched")
        }
    }

    func testADeviceThatCannotPlayRunsEverythingButEchoCancellation() throws {
        let hub = SharedAudioDevice(wrapping: CaptureOnlyDevice())
        XCTAssertEqual(hub.processing.setOptions(.all), .noPlaybackSide)
        XCTAssertNil(hub.processing.setOptions(AudioProcessingOptions(echoCancellation: false)), "nothing asked that it cannot do")
        hub.processing.setOptions(.all)
        // A DC offset: the high-pass filter, which runs, removes it.
        let offset = [Int16](repeating: 3_000, count: period)
        var last: [Int16] = []
        for _ in 0..<100 { offset.withUnsafeBufferPointer { last = Array(hub.processing.processCapture($0)) } }
        XCTAssertLessThan(RoomSignals.level(last.map(Double.init)), RoomSignals.level(offset.map(Double.init)) - 20, "processed")
        let status = hub.processing.status
        XCTAssertEqual(status.active, AudioProcessingOptions(echoCancellation: false))
        XCTAssertEqual(status.fallback, .noPlaybackSide)
    }

    func testPeriodsThatAreNotWholeFramesAreProcessedOneFrameLate() throws {
        // 256-frame periods: 10 ms frames are cut across them, and the output lags by one frame.
        let device = ManualAudioDevice(format: AudioFormat(framesPerBuffer: 256))
        let hub = SharedAudioDevice(wrapping: device)
        hub.processing.setOptions(AudioProcessingOptions(echoCancellation: false, noiseSuppression: false, autoGainControl: false))
        let tone = TestSignals.multiTone([(1_000, 8_000)], seconds: 2)
        let result = try drive(device, hub: hub, sources: [], periods: tone.count / 256, framesPerPeriod: 256) { k, _ in
            Array(tone[(k * 256)..<((k + 1) * 256)])
        }
        XCTAssertEqual(result.heard.count, tone.count / 256 * 256)
        XCTAssertTrue(result.heard.prefix(480).allSatisfy { $0 == 0 }, "the first frame is the framer's silence")
        let shifted = Array(tone.prefix(result.heard.count - 480))
        let heard = Array(result.heard.dropFirst(480))
        let error = RoomSignals.level(zip(heard, shifted).map { Double($0) - Double($1) }, 24_000..<shifted.count)
        XCTAssertLessThan(error, RoomSignals.level(shifted.map(Double.init)) - 20, "the high-pass filter passes 1 kHz, one frame late")
    }

    func testProcessingAllocatesNothingPerPeriod() throws {
        try XCTSkipUnless(voice_malloc_counter_is_counting() == 1, "a sanitizer build counts no allocations")
        let device = ManualAudioDevice(format: AudioFormat(framesPerBuffer: period))
        let hub = SharedAudioDevice(wrapping: device)
        hub.processing.setOptions(.all)
        let renderer = hub.makePort(), listener = hub.makePort()
        try renderer.startRendering(context: ConstantAudioContext(value: 1_000))
        try listener.startCapturing(context: ConstantAudioContext(value: 0))
        let input = UnsafeMutableBufferPointer<Int16>.allocate(capacity: period)
        input.initialize(repeating: 300)
        let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: period)
        output.initialize(repeating: 0)
        defer {
            input.deallocate()
            output.deallocate()
        }
        for _ in 0..<100 {  // warm up: the processor's first frames
            device.render(into: output)
            device.capture(UnsafeBufferPointer(input))
        }
        voice_malloc_counter_track_current_thread(1)
        let before = voice_malloc_counter_tracked_count()
        for _ in 0..<200 {
            device.render(into: output)
            device.capture(UnsafeBufferPointer(input))
        }
        let after = voice_malloc_counter_tracked_count()
        voice_malloc_counter_track_current_thread(0)
        XCTAssertEqual(after - before, 0, "heap allocations in 200 processed periods")
        XCTAssertEqual(hub.processing.status.active, .all)
    }
}

/// A microphone with no speaker.
private final class CaptureOnlyDevice: AudioDevice, Sendable {
    var captureFormat: AudioFormat? { AudioFormat() }
    var renderFormat: AudioFormat? { nil }
    var isEnabled: Bool {
        get { true }
        set {}
    }
    func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {}
    func stopCapturing() {}
    func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        throw AudioDeviceError(kind: .unsupportedFormat, message: "no playback")
    }
    func stopRendering() {}
}
