import VoiceEmbedded
import Synchronization
import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceTestKit

final class MediaLoadMeterTests: XCTestCase {
    func testLoadIsTheShareOfEachWindowSpentInTicks() {
        var meter = MediaLoadMeter(window: .milliseconds(500))
        var now = MediaTime.milliseconds(10_000)
        XCTAssertNil(meter.record(busy: .milliseconds(2), endingAt: now), "the first tick only opens the window")
        var reported: [Double] = []
        // Ticks every 5 ms, each busy 2 ms: 40 %.
        for _ in 0..<200 {
            now += .milliseconds(5)
            if let load = meter.record(busy: .milliseconds(2), endingAt: now) { reported.append(load) }
        }
        XCTAssertEqual(reported.count, 2, "one value per 500 ms window")
        for load in reported { XCTAssertEqual(load, 0.4, accuracy: 0.001) }
        // Overrunning ticks, back to back: fully loaded (capped at 1 however late they run).
        for _ in 0..<100 {
            now += .milliseconds(7)
            _ = meter.record(busy: .milliseconds(8), endingAt: now)
        }
        XCTAssertEqual(meter.load ?? 0, 1, accuracy: 0.001)
        // Idle ticks bring it back down: the first whole window of them reads idle.
        for _ in 0..<220 {
            now += .milliseconds(5)
            _ = meter.record(busy: .microseconds(50), endingAt: now)
        }
        XCTAssertEqual(meter.load ?? 1, 0.01, accuracy: 0.002)
    }

    /// A task that spends `busy` of wall time in every playout tick while `working` is set.
    final class BusyTask: MediaTask, @unchecked Sendable {
        let working = Atomic<Bool>(true)
        let busy: MediaTime
        let clock = MonotonicMediaClock()
        init(busy: MediaTime) { self.busy = busy }
        var transports: [any MediaTransport] { [] }
        func receive(from transportIndex: Int, now: MediaTime, wallClockOffset: Int64) -> Bool { false }
        func playoutTick(now: MediaTime, pass: PlayoutPass) {
            guard pass == .remaining, working.load(ordering: .relaxed) else { return }
            let until = clock.now() + busy
            while clock.now() < until {}
        }
        func tick(now: MediaTime) {}
    }

    func testTheEngineReportsItsWorkersLoadAndItFallsWhenTheWorkStops() {
        let engine = MediaEngine(workerCount: 1, tickInterval: .milliseconds(5))
        let task = BusyTask(busy: .microseconds(3_500))
        let handle = engine.attach(task)
        defer { engine.detach(handle) }
        // 3.5 ms of every 5 ms tick, on the wall clock: about 0.7, more if the thread is preempted.
        XCTAssertTrue(PollingWait.until(timeout: 10) { engine.load >= 0.6 }, "load \(engine.load)")
        task.working.store(false, ordering: .relaxed)
        XCTAssertTrue(PollingWait.until(timeout: 10) { engine.load < 0.3 }, "load \(engine.load) once idle")
    }

    func testTheLeastBusyWorkerIsTheEnginesLoadSinceNewStreamsGoThere() {
        let engine = MediaEngine(workerCount: 2, tickInterval: .milliseconds(5))
        let task = BusyTask(busy: .microseconds(3_500))
        let handle = engine.attach(task)  // one worker busy, the other idle
        defer { engine.detach(handle) }
        Thread.sleep(forTimeInterval: 1.2)  // two windows
        XCTAssertLessThan(engine.load, 0.3, "one idle worker can still take streams")
    }
}
