import Synchronization
import XCTest
@testable import VoiceMedia
import VoiceSupport

/// The bot's device, paced by a manual clock the test ticks (one 10 ms buffer each way per tick).
final class PCMAudioDeviceTests: XCTestCase {
    private let ticker = ManualAudioTicker(name: "test-pcm-clk")
    private var pacing: SoftwareAudioPacing { ticker.pacing }
    private func tick(_ count: Int) { ticker.tick(count) }

    func testWhatIsPlayedIsSentInOrderThenSilence() throws {
        let device = PCMAudioDevice(pacing: pacing)
        let context = CollectingAudioContext()
        let first = testTone(count: 700), second = testTone(count: 300).map { $0 / 2 }
        XCTAssertEqual(device.play(first), 700)
        XCTAssertEqual(device.play(second), 300)
        XCTAssertEqual(device.queuedSamples, 1_000)
        try device.startCapturing(context: context)
        tick(3)
        device.stopCapturing()
        let captured = context.captured
        XCTAssertEqual(captured.count, 1_440)
        XCTAssertEqual(Array(captured.prefix(1_000)), first + second)
        XCTAssertTrue(captured.suffix(440).allSatisfy { $0 == 0 }, "silence once the queue is empty")
        XCTAssertEqual(device.queuedSamples, 0)
    }

    func testStopPlayingDropsWhatIsQueuedButNotWhatIsPlayedAfter() throws {
        let device = PCMAudioDevice(pacing: pacing)
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        device.play(testTone(count: 4_800))
        tick(1)
        device.stopPlaying()
        XCTAssertEqual(device.queuedSamples, 0)
        let after = [Int16](repeating: 1_234, count: 480)
        device.play(after)
        tick(2)
        device.stopCapturing()
        let captured = context.captured
        XCTAssertEqual(captured.count, 1_440)
        XCTAssertEqual(Array(captured[0..<480]), Array(testTone(count: 480)), "the buffer sent before the barge-in")
        XCTAssertEqual(Array(captured[480..<960]), after, "what was played after stopPlaying, at once")
        XCTAssertTrue(captured[960...].allSatisfy { $0 == 0 })
    }

    func testAFullQueueTakesWhatFitsAndSaysSo() {
        let device = PCMAudioDevice(maximumQueued: .milliseconds(20), pacing: pacing)
        // 20 ms at 48 kHz is 960 samples.
        XCTAssertEqual(device.play([Int16](repeating: 1, count: 2_000)), 960)
        XCTAssertEqual(device.queuedSamples, 960)
        XCTAssertEqual(device.play([1, 2, 3]), 0, "full")
    }

    /// A barge-in frees the queue at once, also before the clock thread has dropped what was
    /// queued, and with capture not running at all.
    func testStopPlayingMakesRoomAtOnce() throws {
        let device = PCMAudioDevice(maximumQueued: .milliseconds(20), pacing: pacing)
        XCTAssertEqual(device.play([Int16](repeating: 1, count: 960)), 960)
        device.stopPlaying()
        XCTAssertEqual(device.queuedSamples, 0)
        let next = testTone(count: 960)
        XCTAssertEqual(device.play(next), 960, "the whole queue again")
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        tick(2)
        device.stopCapturing()
        XCTAssertEqual(context.captured, next, "only what was played after the barge-in")
    }

    func testTheCallsAudioReachesOnAudioBufferByBuffer() throws {
        let heard = Mutex<[Int16]>([])
        let device = PCMAudioDevice(pacing: pacing) { buffer in heard.withLock { $0.append(contentsOf: buffer) } }
        let tone = testTone(count: 1_440)
        let context = CollectingAudioContext(renderSource: tone)
        try device.startRendering(context: context)
        tick(3)
        device.stopRendering()
        XCTAssertEqual(heard.withLock { $0 }, tone)
        tick(1)
        XCTAssertEqual(heard.withLock { $0.count }, 1_440, "nothing after stopRendering")
    }
}
