import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceSupport
import VoiceMediaTypes

/// The null device, paced by a manual clock the test ticks (counted exactly), except where the
/// shared clock's thread or a free-running thread is the subject.
final class NullAudioDeviceTests: XCTestCase {
    /// `count` ticks of `clock`, 10 ms apart from `first`.
    private func tick(_ clock: SoftwareAudioClock, _ count: Int, first: Int = 0) {
        for k in first..<(first + count) { clock.tick(at: .milliseconds(Int64(10 * k))) }
    }

    func testCapturesSilencePacedAndDiscardsRender() throws {
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: "test-null-clk")
        let device = NullAudioDevice(pacing: .ticked(by: clock))
        let context = CollectingAudioContext(renderSource: testTone(count: 48_000))
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        tick(clock, 30)
        device.stopCapturing()
        device.stopRendering()
        XCTAssertEqual(context.captureCalls, 30, "one buffer per tick")
        XCTAssertEqual(context.renderCalls, 30, "one pull per tick")
        XCTAssertEqual(context.captured.count, 30 * 480)
        XCTAssert(context.captured.allSatisfy { $0 == 0 })
    }

    func testStartTwiceThrowsAlreadyStartedAndStopIsIdempotent() throws {
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: "test-null-clk")
        let device = NullAudioDevice(pacing: .ticked(by: clock))
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertThrowsError(try device.startCapturing(context: context)) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .alreadyStarted)
        }
        device.stopCapturing()
        context.close()
        device.stopCapturing()
        device.stopRendering()  // Never started: a no-op.
        tick(clock, 3)
        XCTAssertEqual(context.callbacksAfterClose, 0)
        // A stopped device can start again.
        let second = CollectingAudioContext()
        try device.startCapturing(context: second)
        tick(clock, 1, first: 3)
        XCTAssertEqual(second.captureCalls, 1)
        device.stopCapturing()
    }

    func testHundredsOfDevicesShareOneClock() throws {
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: "test-null-clk")
        let devices = (0..<300).map { _ in NullAudioDevice(pacing: .ticked(by: clock)) }
        let contexts = devices.map { _ in CollectingAudioContext() }
        for (device, context) in zip(devices, contexts) { try device.startCapturing(context: context) }
        XCTAssertEqual(clock.clientCount, 300)
        tick(clock, 20)
        for device in devices { device.stopCapturing() }
        XCTAssertEqual(clock.clientCount, 0)
        // Each device is paced on the shared clock, not ticked more often: one buffer per tick.
        XCTAssertEqual(Set(contexts.map(\.captureCalls)), [20])
    }

    /// On the shared clock's thread and a free-running one: stopping from inside the callback
    /// must not wait for that very thread.
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
