import VoiceEmbedded
import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceSupport
import VoiceMediaTypes

final class NullAudioDeviceTests: XCTestCase {
    func testCapturesSilencePacedAndDiscardsRender() throws {
        // A clock of its own, started by this test: every tick it gives is due after `start`.
        let device = NullAudioDevice(pacing: .ticked(by: SoftwareAudioClock(period: .milliseconds(10), name: "test-null-clk")))
        let context = CollectingAudioContext(renderSource: testTone(count: 48_000))
        let clock = MonotonicMediaClock()
        let start = clock.now()
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait(timeout: 10) { $0.captureCalls >= 30 && $0.renderCalls >= 30 })
        let elapsed = clock.now() - start
        device.stopCapturing()
        device.stopRendering()
        // Paced: buffer n is never delivered before (n - 1) periods have passed. Only this lower
        // bound holds on a loaded machine; a stalled clock delivers later, or drops buffers.
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(29 * 10), "30 buffers and 30 pulls of 10 ms took \(elapsed)")
        XCTAssertEqual(context.captured.count, context.captureCalls * 480)
        XCTAssert(context.captured.allSatisfy { $0 == 0 })
    }

    func testStartTwiceThrowsAlreadyStartedAndStopIsIdempotent() throws {
        let device = NullAudioDevice()
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertThrowsError(try device.startCapturing(context: context)) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .alreadyStarted)
        }
        device.stopCapturing()
        context.close()
        device.stopCapturing()
        device.stopRendering()  // Never started: a no-op.
        usleep(30_000)
        XCTAssertEqual(context.callbacksAfterClose, 0)
        // A stopped device can start again.
        let second = CollectingAudioContext()
        try device.startCapturing(context: second)
        XCTAssertTrue(second.wait { $0.captureCalls > 0 })
        device.stopCapturing()
    }

    func testHundredsOfDevicesShareOneClock() throws {
        let clock = SoftwareAudioClock(period: .milliseconds(10), name: "test-null-clk")
        let devices = (0..<300).map { _ in NullAudioDevice(pacing: .ticked(by: clock)) }
        let contexts = devices.map { _ in CollectingAudioContext() }
        let start = MonotonicMediaClock().now()
        for (device, context) in zip(devices, contexts) { try device.startCapturing(context: context) }
        XCTAssertEqual(clock.clientCount, 300)
        XCTAssertTrue(PollingWait.until(timeout: 10) { contexts.allSatisfy { $0.captureCalls >= 20 } })
        let elapsed = MonotonicMediaClock().now() - start
        for device in devices { device.stopCapturing() }
        XCTAssertEqual(clock.clientCount, 0)
        // Each device is paced on the shared clock, not ticked more often: 20 buffers take 19 periods.
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(19 * 10), "20 buffers of 10 ms on every device took \(elapsed)")
    }

    func testStoppingFromInsideACallbackEndsCapture() throws {
        for pacing in [SoftwareAudioPacing.realTime, .freeRunning()] {
            let state = try SelfStoppingAudioContext().runUntilStopped(NullAudioDevice(pacing: pacing))
            XCTAssertTrue(state.stopped)
            XCTAssertEqual(state.calls, 3)
            XCTAssertEqual(state.callsAfterStop, 0)
        }
    }

    func testSharedClockThreadIsNamed() throws {
        let device = NullAudioDevice()
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertTrue(context.wait { $0.captureCalls > 0 })
        XCTAssertTrue(currentThreadNames().contains("voice-audio-clk"), "\(currentThreadNames())")
        device.stopCapturing()
    }
}
