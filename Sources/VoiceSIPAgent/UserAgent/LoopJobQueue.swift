import NIOCore
import VoiceSupport

/// Work that reaches a SIP event loop from other threads in bursts (the app's requests, media
/// ports found, media started or stopped) goes through this queue instead of one `execute`
/// each. The loop runs the jobs in the order they were queued, in turns of at most
/// ``turnBudget`` (always at least one job); between turns it runs its timers and the other
/// tasks due.
///
/// Without it an app that places 50 calls at once has 50 tasks that NIO runs in one batch
/// (5–10 ms of SIP and SDP work on two cores) while every timer on that loop, other calls'
/// retransmissions included, waits behind them.
package final class LoopJobQueue: Sendable {
    package typealias Job = @Sendable () -> Void

    /// The longest stretch of queued jobs the loop runs before its timers get a turn.
    package static let turnBudget = TimeAmount.microseconds(250)

    private struct State {
        var jobs: [Job] = []
        var head = 0
        /// A drain task is queued on the loop or running.
        var draining = false

        mutating func pop() -> Job? {
            guard head < jobs.count else {
                jobs.removeAll(keepingCapacity: true)
                head = 0
                return nil
            }
            // The slot keeps a no-op, so the job's last reference is the caller's, dropped
            // outside the lock: a job may hold the last reference to an object whose deinit
            // queues work here (a client shutting down its agent), which under the lock would
            // deadlock.
            let job = jobs[head]
            jobs[head] = LoopJobQueue.done
            head += 1
            return job
        }
    }

    /// What a run job's slot holds until the queue empties.
    private static let done: Job = {}

    private let loop: any EventLoop
    private let state = Locked(State())

    package init(loop: any EventLoop) { self.loop = loop }

    /// Queues `job` to run on the loop after every job queued before it.
    package func execute(_ job: @escaping Job) {
        let startDrain = state.withLock { state -> Bool in
            state.jobs.append(job)
            defer { state.draining = true }
            return !state.draining
        }
        if startDrain { loop.execute { self.drain() } }
    }

    /// Queues `job` like ``execute(_:)`` and returns its result on the loop.
    package func submit<T: Sendable>(_ job: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        let promise = loop.makePromise(of: T.self)
        execute { promise.completeWith(Result(catching: job)) }
        return promise.futureResult
    }

    /// Queues `job` like ``execute(_:)`` and completes with the future it returns.
    package func flatSubmit<T: Sendable>(_ job: @escaping @Sendable () -> EventLoopFuture<T>) -> EventLoopFuture<T> {
        let promise = loop.makePromise(of: T.self)
        execute { promise.completeWith(job()) }
        return promise.futureResult
    }

    /// Runs queued jobs until the queue is empty or the turn's budget is spent, then hands the
    /// loop back (re-queuing itself behind the tasks and timers now due).
    private func drain() {
        let deadline = NIODeadline.now() + Self.turnBudget
        while let job = next() {
            job()
            if NIODeadline.now() >= deadline {
                loop.execute { self.drain() }
                return
            }
        }
    }

    /// The next job, or nil (and draining ends) when there is none.
    private func next() -> Job? {
        state.withLock { state in
            if let job = state.pop() { return job }
            state.draining = false
            return nil
        }
    }
}
