import VoiceTestKit
import Synchronization
import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

/// The buffer device, paced by a manual clock the test ticks (one 10 ms buffer each way per
/// tick, counted exactly), except where its own free-running thread is the subject.
final class BufferAudioDeviceTests: XCTestCase {
    private let ticker = ManualAudioTicker(name: "test-buf-clk")
    private var pacing: SoftwareAudioPacing { ticker.pacing }
    private func tick(_ count: Int) { ticker.tick(count) }

    func testRecordsWhatTheContextRenders() throws {
        let tone = testTone(count: 4_800)
        let device = BufferAudioDevice(pacing: pacing)
        let context = CollectingAudioContext(renderSource: tone)
        try device.startRendering(context: context)
        tick(10)
        device.stopRendering()
        let recorded = device.recordedSamples
        XCTAssertEqual(context.renderedSamples, 4_800, "ten pulls of 480")
        XCTAssertEqual(recorded, tone, "every pulled buffer is recorded")
        device.clearRecording()
        XCTAssertEqual(device.recordedSamples, [])
    }

    /// Free-running: the device's own thread delivers as fast as it can and stops at the end.
    func testFreeRunningCaptureEndsWithTheSamples() throws {
        let tone = testTone(count: 1_000)
        let once = BufferAudioDevice(captureSamples: tone, pacing: .freeRunning())
        let context = CollectingAudioContext()
        try once.startCapturing(context: context)
        XCTAssertTrue(context.wait { $0.captureCalls == 3 })
        once.stopCapturing()
        XCTAssertEqual(context.captureCalls, 3, "free-running capture ends with the samples")
        XCTAssertEqual(Array(context.captured.prefix(1_000)), tone)
        XCTAssertEqual(context.captured.count, 1_440)
        XCTAssert(context.captured.suffix(440).allSatisfy { $0 == 0 })
    }

    func testLoopingCaptureRepeatsTheSamples() throws {
        let tone = testTone(count: 1_000)
        let looping = BufferAudioDevice(captureSamples: tone, loop: true, pacing: pacing)
        let context = CollectingAudioContext()
        try looping.startCapturing(context: context)
        tick(6)
        looping.stopCapturing()
        let captured = context.captured
        XCTAssertEqual(captured.count, 2_880)
        XCTAssertEqual(Array(captured[0..<1_000]), tone)
        XCTAssertEqual(Array(captured[1_000..<2_000]), tone)
        XCTAssertEqual(Array(captured[2_000..<2_880]), Array(tone.prefix(880)))
    }

    func testGeneratorFillsEachBuffer() throws {
        let counter = Atomic<Int16>(0)
        let device = BufferAudioDevice(format: AudioFormat(sampleRate: 16_000, channels: 1, framesPerBuffer: 160), pacing: pacing) { buffer in
            let n = counter.add(1, ordering: .relaxed).newValue
            buffer.update(repeating: n)
        }
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        tick(3)
        device.stopCapturing()
        XCTAssertEqual(context.captureCalls, 3)
        let captured = context.captured
        XCTAssertEqual(Array(captured[0..<160]), [Int16](repeating: 1, count: 160))
        XCTAssertEqual(Array(captured[160..<320]), [Int16](repeating: 2, count: 160))
        XCTAssertEqual(Array(captured[320..<480]), [Int16](repeating: 3, count: 160))
    }

    func testDisabledCapturesAndRecordsSilenceButKeepsPacing() throws {
        let device = BufferAudioDevice(captureSamples: testTone(count: 48_000), loop: true, pacing: pacing)
        device.isEnabled = false
        XCTAssertFalse(device.isEnabled)
        let context = CollectingAudioContext(renderSource: testTone(count: 48_000))
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        tick(20)
        device.stopCapturing()
        device.stopRendering()
        XCTAssertEqual(context.captureCalls, 20, "paced while disabled: one buffer per tick")
        XCTAssertEqual(context.renderCalls, 20, "render audio is still pulled")
        XCTAssert(context.captured.allSatisfy { $0 == 0 })
        XCTAssertEqual(device.recordedSamples.count, 20 * 480)
        XCTAssert(device.recordedSamples.allSatisfy { $0 == 0 })
    }

    func testNoCallbackAfterStopAndStopIsIdempotent() throws {
        let device = BufferAudioDevice(captureSamples: testTone(count: 480), loop: true, pacing: pacing)
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        tick(2)
        XCTAssertEqual(context.captureCalls, 2)
        XCTAssertEqual(context.renderCalls, 2)
        device.stopCapturing()
        device.stopRendering()
        context.close()
        device.stopCapturing()
        device.stopRendering()
        let recorded = device.recordedSamples.count
        tick(5)
        XCTAssertEqual(context.callbacksAfterClose, 0)
        XCTAssertEqual(device.recordedSamples.count, recorded)
    }
}
