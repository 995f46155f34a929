import VoiceEmbedded
import Synchronization
import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceSupport
import VoiceMediaTypes

final class AudioDevicePacingTests: XCTestCase {
    // MARK: PacingSchedule on a virtual clock

    func testScheduleDeliversOneBufferPerDurationWithoutDrift() {
        var schedule = PacingSchedule(bufferDuration: .milliseconds(10))
        let start = MediaTime.milliseconds(1_000)
        XCTAssertEqual(schedule.buffersDue(at: start), 1)
        XCTAssertEqual(schedule.buffersDue(at: start + .milliseconds(9)), 0)
        var total = 1
        // Ticks with jitter: 7, 13, 10, 10 … ms apart; the total follows elapsed time exactly.
        var now = start
        for step in 0..<1000 {
            now += .milliseconds(step % 2 == 0 ? 7 : 13)
            total += schedule.buffersDue(at: now)
        }
        XCTAssertEqual(total, 1 + 10_000 / 10)
        XCTAssertEqual(schedule.droppedBuffers, 0)
    }

    func testScheduleWithBufferLongerThanTickPeriod() {
        var schedule = PacingSchedule(bufferDuration: .milliseconds(20))
        var delivered = 0
        for tick in 0..<100 { delivered += schedule.buffersDue(at: .milliseconds(Int64(tick) * 10)) }
        XCTAssertEqual(delivered, 50)
    }

    func testScheduleCatchesUpThenDropsAfterAStall() {
        var schedule = PacingSchedule(bufferDuration: .milliseconds(10), maxCatchUp: 5)
        XCTAssertEqual(schedule.buffersDue(at: .zero), 1)
        XCTAssertEqual(schedule.buffersDue(at: .milliseconds(30)), 3, "small delay: catch up fully")
        XCTAssertEqual(schedule.buffersDue(at: .milliseconds(1_030)), 5, "long stall: bounded burst")
        XCTAssertEqual(schedule.droppedBuffers, 95)
        XCTAssertEqual(schedule.nextDue, .milliseconds(1_040))
        XCTAssertEqual(schedule.buffersDue(at: .milliseconds(1_040)), 1)
    }

    // MARK: PeriodicDeadline on a virtual clock

    func testDeadlinesStayOnTheAbsoluteGridWhateverTheLoopCosts() {
        var deadline = PeriodicDeadline(start: .milliseconds(100), period: .milliseconds(10), resyncAfterPeriods: 2)
        XCTAssertEqual(deadline.advance(now: .milliseconds(103)), .milliseconds(110))
        XCTAssertEqual(deadline.advance(now: .milliseconds(119)), .milliseconds(120), "late work does not shift the grid")
        XCTAssertEqual(deadline.advance(now: .milliseconds(145)), .milliseconds(130), "slightly late: due at once, grid kept")
        XCTAssertEqual(deadline.advance(now: .milliseconds(145)), .milliseconds(140))
        XCTAssertEqual(deadline.advance(now: .milliseconds(300)), .milliseconds(300), "a stall restarts the grid from now")
        XCTAssertEqual(deadline.advance(now: .milliseconds(301)), .milliseconds(310))
    }

    // MARK: SoftwareAudioClock (real time, kept short)

    final class CountingClient: SoftwareAudioClockClient {
        let ticks = Locked<[MediaTime]>([])
        let afterStop = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
        func clockDidTick(at time: MediaTime) {
            if stopped.load(ordering: .acquiring) { afterStop.add(1, ordering: .relaxed) }
            ticks.withLock { $0.append(time) }
        }
        var count: Int { ticks.withLock { $0.count } }
    }

    func testClockTicksManyClientsOnOneThreadAtItsPeriod() throws {
        let clock = SoftwareAudioClock(period: .milliseconds(10), name: "test-clock")
        let clients = (0..<200).map { _ in CountingClient() }
        let start = MonotonicMediaClock().now()
        let registrations = try clients.map { try clock.register($0) }
        XCTAssertEqual(clock.clientCount, 200)
        XCTAssertTrue(PollingWait.until(timeout: 10) { clients.allSatisfy { $0.count >= 30 } })
        let elapsed = MonotonicMediaClock().now() - start
        for registration in registrations { clock.unregister(registration) }
        XCTAssertEqual(clock.clientCount, 0)
        // Never faster than the period: tick n comes no earlier than (n - 1) periods after the start.
        // (A stalled machine makes ticks late, never early; so no upper bound on the count.)
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(29 * 10), "30 ticks of 10 ms took \(elapsed)")
        // Ticks are exactly one period apart: absolute deadlines, no drift. The one exception is a
        // stall of more than ten periods (a loaded machine), after which the clock restarts its
        // timeline from the current time rather than bursting to catch up.
        let ticks = clients[0].ticks.withLock { $0 }
        for (a, b) in zip(ticks, ticks.dropFirst()) {
            let gap = (b - a).nanoseconds
            XCTAssert(gap == 10_000_000 || gap > 110_000_000, "ticks \(a) and \(b) are \(gap) ns apart")
        }
    }

    func testNoTickAfterUnregisterReturns() throws {
        let clock = SoftwareAudioClock(period: .milliseconds(2), name: "test-clock")
        for _ in 0..<20 {
            let client = CountingClient()
            let registration = try clock.register(client)
            usleep(3_000)
            clock.unregister(registration)
            client.stopped.store(true, ordering: .releasing)
            clock.unregister(registration)  // Idempotent.
            XCTAssertFalse(registration.isActive)
            usleep(5_000)
            XCTAssertEqual(client.afterStop.load(ordering: .relaxed), 0)
        }
    }

    func testClientMayUnregisterFromInsideItsTick() throws {
        final class SelfRemoving: SoftwareAudioClockClient {
            let clock: SoftwareAudioClock
            let registration = Locked<SoftwareAudioClock.Registration?>(nil)
            let ticks = Atomic<Int>(0)
            init(clock: SoftwareAudioClock) { self.clock = clock }
            func clockDidTick(at time: MediaTime) {
                if ticks.add(1, ordering: .relaxed).newValue == 3, let r = registration.withLock({ $0 }) {
                    clock.unregister(r)  // Must neither deadlock nor tick again.
                }
            }
        }
        let clock = SoftwareAudioClock(period: .milliseconds(2), name: "test-clock")
        let client = SelfRemoving(clock: clock)
        let registration = try clock.register(client)
        client.registration.withLock { $0 = registration }
        XCTAssertTrue(PollingWait.until(timeout: 5) { clock.clientCount == 0 }, "the client unregisters itself")
        usleep(20_000)  // ten more periods in which a stray tick could come
        XCTAssertEqual(client.ticks.load(ordering: .relaxed), 3)
        XCTAssertFalse(registration.isActive)
    }
}
