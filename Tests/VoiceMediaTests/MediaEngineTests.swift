import VoiceEmbedded
import Synchronization
import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceSupport
import VoiceMediaTypes

final class MediaEngineTests: XCTestCase {
    final class CountingTask: MediaTask, @unchecked Sendable {
        let ticks = Atomic<Int>(0)
        var transports: [any MediaTransport] { [] }
        func receive(from transportIndex: Int, now: MediaTime, wallClockOffset: Int64) -> Bool { false }
        func playoutTick(now: MediaTime, pass: PlayoutPass) {}
        func tick(now: MediaTime) { ticks.add(1, ordering: .relaxed) }
    }

    func testTicksAttachedTasksAndStopsAfterDetach() {
        let engine = MediaEngine(workerCount: 2, tickInterval: .milliseconds(5))
        let a = CountingTask(), b = CountingTask()
        let clock = MonotonicMediaClock()
        let start = clock.now()
        let ha = engine.attach(a)
        let hb = engine.attach(b)
        XCTAssertEqual(engine.stats.tasks, 2)
        XCTAssertTrue(PollingWait.until(timeout: 10) { a.ticks.load(ordering: .relaxed) >= 60 }, "the engine ticks its tasks")
        let elapsed = clock.now() - start
        engine.detach(ha)
        let afterDetach = a.ticks.load(ordering: .relaxed)
        // One tick per timer expiration, 5 ms apart; the first two may come from expirations
        // already pending when the task was attached. Late under load, never early.
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(57 * 5), "60 ticks of 5 ms took \(elapsed)")
        XCTAssertTrue(
            PollingWait.until(timeout: 10) { b.ticks.load(ordering: .relaxed) > afterDetach + 10 }, "the other task keeps ticking")
        XCTAssertEqual(a.ticks.load(ordering: .relaxed), afterDetach, "no tick after detach returns")
        engine.detach(hb)
        XCTAssertEqual(engine.stats.tasks, 0)
        XCTAssertGreaterThan(engine.cpuTime.nanoseconds, 0)
    }
}
