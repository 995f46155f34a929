import XCTest
@testable import VoiceMedia

final class NullAudioDeviceTests: XCTestCase {
    func testCapturesSilencePacedAndDiscardsRender() throws {
        let device = NullAudioDevice()
        let context = CollectingAudioContext(renderSource: testTone(count: 48_000))
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        usleep(300_000)
        device.stopCapturing()
        device.stopRendering()
        XCTAssert((21...40).contains(context.captureCalls), "about 30 buffers in 300 ms, got \(context.captureCalls)")
        XCTAssert((21...40).contains(context.renderCalls), "about 30 pulls in 300 ms, got \(context.renderCalls)")
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
        let devices = (0..<300).map { _ in NullAudioDevice(pacing: .realTime(clock: clock)) }
        let contexts = devices.map { _ in CollectingAudioContext() }
        for (device, context) in zip(devices, contexts) { try device.startCapturing(context: context) }
        XCTAssertEqual(clock.clientCount, 300)
        usleep(200_000)
        for device in devices { device.stopCapturing() }
        XCTAssertEqual(clock.clientCount, 0)
        for context in contexts {
            XCTAssert((13...28).contains(context.captureCalls), "about 20 buffers in 200 ms, got \(context.captureCalls)")
        }
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
