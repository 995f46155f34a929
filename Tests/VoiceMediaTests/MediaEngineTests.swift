import Synchronization
import XCTest
@testable import VoiceMedia

final class MediaEngineTests: XCTestCase {
    final class CountingTask: MediaTask, @unchecked Sendable {
        let ticks = Atomic<Int>(0)
        var descriptors: [Int32] { [] }
        func readable(descriptorIndex: Int, now: MediaTime, wallToMonotonic: Int64) -> Bool { false }
        func playoutTick(now: MediaTime) {}
        func tick(now: MediaTime) { ticks.add(1, ordering: .relaxed) }
    }

    func testTicksAttachedTasksAndStopsAfterDetach() {
        let engine = MediaEngine(workerCount: 2, tickInterval: .milliseconds(5))
        let a = CountingTask(), b = CountingTask()
        let ha = engine.attach(a)
        let hb = engine.attach(b)
        XCTAssertEqual(engine.stats.tasks, 2)
        Thread.sleep(forTimeInterval: 0.3)
        engine.detach(ha)
        let afterDetach = a.ticks.load(ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(a.ticks.load(ordering: .relaxed), afterDetach, "no tick after detach returns")
        XCTAssertGreaterThan(afterDetach, 20, "about 60 ticks in 300 ms")
        XCTAssertLessThan(afterDetach, 120)
        XCTAssertGreaterThan(b.ticks.load(ordering: .relaxed), afterDetach)
        engine.detach(hb)
        XCTAssertEqual(engine.stats.tasks, 0)
        XCTAssertGreaterThan(engine.cpuTime.nanoseconds, 0)
    }
}
