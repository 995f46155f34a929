import VoiceEmbedded
import NIOCore
import NIOEmbedded
import NIOPosix
import VoiceSupport
import XCTest

@testable import VoiceSIPAgent

/// The loop runs queued jobs in order and in bounded turns, with other tasks between turns. On
/// an `EmbeddedEventLoop`, run by the test's thread, except where a real loop thread is the
/// subject (a deadlock is only seen from outside it).
final class LoopJobQueueTests: XCTestCase {
    private var loop: EmbeddedEventLoop!

    override func setUp() { loop = EmbeddedEventLoop() }
    override func tearDown() { try? loop.syncShutdownGracefully() }

    /// Runs the loop until it has nothing left to do and returns `future`'s value.
    private func value<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let result = Locked<Result<T, Error>?>(nil)
        future.whenComplete { outcome in result.withLock { $0 = outcome } }
        loop.run()
        return try XCTUnwrap(result.withLock { $0 }, "the future did not complete").get()
    }

    /// Spins for `microseconds` of wall time, as a call's SIP and SDP work does.
    private static func work(microseconds: Int64) {
        let end = NIODeadline.now() + .microseconds(microseconds)
        while NIODeadline.now() < end {}
    }

    func testJobsRunInTheOrderQueued() throws {
        let queue = LoopJobQueue(loop: loop)
        let ran = Locked<[Int]>([])
        let done = loop.makePromise(of: Void.self)
        for i in 0..<500 { queue.execute { ran.withLock { $0.append(i) } } }
        queue.execute { done.succeed(()) }
        try value(done.futureResult)
        XCTAssertEqual(ran.withLock { $0 }, Array(0..<500))
    }

    /// Ten jobs of 300 µs queued at once: a task queued on the loop after them runs between two
    /// turns (a turn ends once the 250 µs budget is spent, so after one such job), not after all
    /// ten as with one `execute` per job.
    func testOtherTasksRunBetweenTurns() throws {
        let loop = loop!
        let queue = LoopJobQueue(loop: loop)
        let order = Locked<[String]>([])
        let done = loop.makePromise(of: Void.self)
        loop.execute {
            for i in 0..<10 {
                queue.execute {
                    Self.work(microseconds: 300)
                    order.withLock { $0.append("job\(i)") }
                }
            }
            queue.execute { done.succeed(()) }
            loop.execute { order.withLock { $0.append("other") } }
        }
        try value(done.futureResult)
        let seen = order.withLock { $0 }
        XCTAssertEqual(seen.filter { $0 != "other" }, (0..<10).map { "job\($0)" })
        let other = try XCTUnwrap(seen.firstIndex(of: "other"))
        XCTAssertGreaterThan(other, 0, "a turn runs at least one job")
        XCTAssertLessThanOrEqual(other, 2, "the other task waits for one turn only: \(seen)")
    }

    /// `submit` and `flatSubmit` take their place in the queue like `execute` and hand back the
    /// job's result (or error) on the loop.
    func testSubmittedJobsKeepTheQueueOrderAndReturnTheirResults() throws {
        struct Refused: Error {}
        let loop = loop!
        let queue = LoopJobQueue(loop: loop)
        let order = Locked<[String]>([])
        queue.execute { order.withLock { $0.append("execute") } }
        let value = queue.submit { () -> Int in
            order.withLock { $0.append("submit") }
            return 42
        }
        let failed = queue.submit { () throws -> Int in
            order.withLock { $0.append("throws") }
            throw Refused()
        }
        let chained = queue.flatSubmit { () -> EventLoopFuture<String> in
            order.withLock { $0.append("flatSubmit") }
            return loop.makeSucceededFuture("chained")
        }
        XCTAssertEqual(try self.value(value), 42)
        XCTAssertThrowsError(try self.value(failed)) { XCTAssertTrue($0 is Refused) }
        XCTAssertEqual(try self.value(chained), "chained")
        XCTAssertEqual(order.withLock { $0 }, ["execute", "submit", "throws", "flatSubmit"])
    }

    /// A job may hold the last reference to an object whose deinit queues more work (a client
    /// whose deinit shuts its agent down): the job is released outside the queue's lock, so
    /// that works instead of deadlocking the loop. On a real loop thread: a deadlock there is
    /// seen from the test's thread, where on an embedded loop it would hang the test itself.
    func testAJobsLastReferenceIsDroppedOutsideTheLock() throws {
        final class QueuesOnDeinit: Sendable {
            let queue: LoopJobQueue
            let done: EventLoopPromise<Void>
            init(queue: LoopJobQueue, done: EventLoopPromise<Void>) {
                self.queue = queue
                self.done = done
            }
            deinit { queue.execute { [done] in done.succeed(()) } }
        }
        // A group of its own, left running if the loop deadlocks, so the failure is reported.
        let own = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = own.next()
        let queue = LoopJobQueue(loop: loop)
        let done = loop.makePromise(of: Void.self)
        let finished = Locked(false)
        done.futureResult.whenSuccess { finished.withLock { $0 = true } }
        do {
            let holder = QueuesOnDeinit(queue: queue, done: done)
            queue.execute { _ = holder.queue }
        }
        XCTAssertTrue(PollingWait.until(timeout: 5) { finished.withLock { $0 } }, "the deinit's job ran")
        if finished.withLock({ $0 }) { try own.syncShutdownGracefully() }
    }

    func testAJobQueuedByAJobRunsAfterTheOnesBeforeIt() throws {
        let loop = loop!
        let queue = LoopJobQueue(loop: loop)
        let order = Locked<[Int]>([])
        let done = loop.makePromise(of: Void.self)
        // Both queued from one loop task, so the first cannot run before the second is queued.
        loop.execute {
            queue.execute {
                order.withLock { $0.append(1) }
                queue.execute {
                    order.withLock { $0.append(3) }
                    done.succeed(())
                }
            }
            queue.execute { order.withLock { $0.append(2) } }
        }
        try value(done.futureResult)
        XCTAssertEqual(order.withLock { $0 }, [1, 2, 3])
    }
}
