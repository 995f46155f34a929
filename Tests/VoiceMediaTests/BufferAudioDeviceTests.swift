import Synchronization
import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

final class BufferAudioDeviceTests: XCTestCase {
    func testRecordsWhatTheContextRenders() throws {
        let tone = testTone(count: 4_800)
        let device = BufferAudioDevice()
        let context = CollectingAudioContext(renderSource: tone)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait { $0.renderedSamples >= 4_800 })
        device.stopRendering()
        let recorded = device.recordedSamples
        XCTAssertGreaterThanOrEqual(recorded.count, 4_800)
        XCTAssertEqual(recorded.count, context.renderedSamples, "every pulled buffer is recorded")
        XCTAssertEqual(Array(recorded.prefix(4_800)), tone)
        device.clearRecording()
        XCTAssertEqual(device.recordedSamples, [])
    }

    func testCapturesSamplesOnceThenSilenceOrLoops() throws {
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

        let looping = BufferAudioDevice(captureSamples: tone, loop: true)
        let loopContext = CollectingAudioContext()
        try looping.startCapturing(context: loopContext)
        XCTAssertTrue(loopContext.wait { $0.captured.count >= 2_500 })
        looping.stopCapturing()
        let captured = loopContext.captured
        XCTAssertEqual(Array(captured[0..<1_000]), tone)
        XCTAssertEqual(Array(captured[1_000..<2_000]), tone)
    }

    func testGeneratorFillsEachBuffer() throws {
        let counter = Atomic<Int16>(0)
        let device = BufferAudioDevice(format: AudioFormat(sampleRate: 16_000, channels: 1, framesPerBuffer: 160)) { buffer in
            let n = counter.add(1, ordering: .relaxed).newValue
            buffer.update(repeating: n)
        }
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertTrue(context.wait { $0.captureCalls >= 3 })
        device.stopCapturing()
        let captured = context.captured
        XCTAssertEqual(Array(captured[0..<160]), [Int16](repeating: 1, count: 160))
        XCTAssertEqual(Array(captured[160..<320]), [Int16](repeating: 2, count: 160))
    }

    func testDisabledCapturesAndRecordsSilenceButKeepsPacing() throws {
        // A clock of its own, started by this test: every tick it gives is due after `start`.
        let pacing = SoftwareAudioPacing.ticked(by: SoftwareAudioClock(period: .milliseconds(10), name: "test-buf-clk"))
        let device = BufferAudioDevice(captureSamples: testTone(count: 48_000), loop: true, pacing: pacing)
        device.isEnabled = false
        XCTAssertFalse(device.isEnabled)
        let context = CollectingAudioContext(renderSource: testTone(count: 48_000))
        let clock = MonotonicMediaClock()
        let start = clock.now()
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait(timeout: 10) { $0.captureCalls >= 20 && $0.renderCalls > 0 })
        let elapsed = clock.now() - start
        device.stopCapturing()
        device.stopRendering()
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(19 * 10), "paced while disabled: 20 buffers of 10 ms took \(elapsed)")
        XCTAssert(context.captured.allSatisfy { $0 == 0 })
        XCTAssertGreaterThan(context.renderCalls, 0, "render audio is still pulled")
        XCTAssertFalse(device.recordedSamples.isEmpty)
        XCTAssert(device.recordedSamples.allSatisfy { $0 == 0 })
    }

    func testNoCallbackAfterStopAndStopIsIdempotent() throws {
        let device = BufferAudioDevice(captureSamples: testTone(count: 480), loop: true)
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait { $0.captureCalls >= 2 && $0.renderCalls >= 2 })
        device.stopCapturing()
        device.stopRendering()
        context.close()
        device.stopCapturing()
        device.stopRendering()
        let recorded = device.recordedSamples.count
        usleep(50_000)
        XCTAssertEqual(context.callbacksAfterClose, 0)
        XCTAssertEqual(device.recordedSamples.count, recorded)
    }
}
