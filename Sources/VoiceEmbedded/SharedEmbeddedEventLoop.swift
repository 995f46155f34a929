import Dispatch
import NIOCore
import NIOEmbedded
import VoiceSupport

#if canImport(Glibc)
import Glibc
#endif

/// An `EmbeddedEventLoop` that other threads may hand work to.
///
/// The embedded loop runs on the thread that made it and has no lock: a task queued from
/// another thread (a delegate queue that answers a call, a dispatch thread that completes a
/// promise) races the test's thread over its task queue. Here such a task waits in an inbox
/// behind a lock, and the test's thread moves it onto the loop each time it runs the loop
/// (``run()``, ``advanceTime(by:)``), in the order it came. On the loop's own thread every call
/// goes straight to the embedded loop, so timers and "now" stay virtual.
///
/// A timer asked for from another thread is set when its request reaches the loop (never in
/// the loop's past); cancelling it from another thread takes effect the same way.
package final class SharedEmbeddedEventLoop: EventLoop, @unchecked Sendable {
    // @unchecked: `embedded` is touched on `thread` only; the rest is behind locks.
    private let embedded = EmbeddedEventLoop()
    private let thread = pthread_self()
    private let inbox = Locked<[@Sendable () -> Void]>([])
    /// The loop's time as of its last run, for readers on other threads.
    private let published: Locked<NIODeadline>

    package init() { published = Locked(embedded.now) }

    package var inEventLoop: Bool { pthread_equal(thread, pthread_self()) != 0 }

    package var now: NIODeadline { inEventLoop ? embedded.now : published.withLock { $0 } }

    package func execute(_ task: @escaping @Sendable () -> Void) {
        if inEventLoop {
            embedded.execute(task)
        } else {
            inbox.withLock { $0.append(task) }
        }
    }

    /// A timer, set at once on the loop's thread and when the request reaches the loop from
    /// another. Either way the `Scheduled` is the front's own: its future is this loop's and its
    /// cancellation goes through the loop, so no other thread touches the embedded loop's queue.
    package func scheduleTask<T>(deadline: NIODeadline, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        let promise = makePromise(of: T.self)
        let timer = Locked(RemoteTimer<T>.requested(promise))
        onLoop {
            let request = timer.withLock { state -> EventLoopPromise<T>? in
                guard case .requested(let promise) = state else { return nil }
                state = .setting
                return promise
            }
            guard let request else { return }
            // A deadline read off the loop is the last run's time: never set one in the loop's past,
            // which would move the embedded loop's clock back when it fires.
            let scheduled = self.embedded.scheduleTask(deadline: max(deadline, self.embedded.now), task)
            timer.withLock { $0 = .set(scheduled) }
            scheduled.futureResult.assumeIsolated().whenComplete { result in
                request.assumeIsolated().completeWith(result)
            }
        }
        return Scheduled(promise: promise) {
            self.onLoop {
                // After the request (both reach the loop in order).
                let pending = timer.withLock { state -> RemoteTimer<T> in
                    defer { state = .cancelled }
                    return state
                }
                switch pending {
                case .requested(let promise): promise.fail(EventLoopError.cancelled)
                case .set(let scheduled): scheduled.cancel()
                case .setting, .cancelled: break
                }
            }
        }
    }

    /// Runs `body` now on the loop's thread, or from the inbox when it next runs.
    private func onLoop(_ body: @escaping @Sendable () -> Void) {
        if inEventLoop {
            body()
        } else {
            inbox.withLock { $0.append(body) }
        }
    }

    package func scheduleTask<T>(in delay: TimeAmount, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        scheduleTask(deadline: now + delay, task)
    }

    package func _preconditionSafeToWait(file: StaticString, line: UInt) {}

    /// Shuts the embedded loop down on its thread. From another thread (an async test, which
    /// runs on the concurrency pool, closing the world its `setUp` made) the loop may not be
    /// touched, not even freed: it is kept, unused, until the process ends.
    package func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        guard inEventLoop else {
            Self.orphans.withLock { $0.append(self) }
            queue.async { callback(nil) }
            return
        }
        run()
        embedded.shutdownGracefully(queue: queue, callback)
    }

    /// Loops shut down from another thread than their own.
    private static let orphans = Locked<[SharedEmbeddedEventLoop]>([])

    /// Runs what is due now, the inbox's tasks included, until neither has more.
    package func run() {
        repeat {
            moveInbox()
            embedded.run()
        } while !inbox.withLock(\.isEmpty)
        published.withLock { $0 = embedded.now }
    }

    /// Moves time on by `amount`, running the inbox's tasks first and what falls due on the way.
    package func advanceTime(by amount: TimeAmount) {
        moveInbox()
        embedded.advanceTime(by: amount)
        run()
    }

    private func moveInbox() {
        let tasks = inbox.withLock { tasks in
            defer { tasks.removeAll(keepingCapacity: true) }
            return tasks
        }
        for task in tasks { embedded.execute(task) }
    }
}

/// A timer, as the loop sees it.
private enum RemoteTimer<T> {
    /// Asked for; the request has not reached the loop.
    case requested(EventLoopPromise<T>)
    /// Being set on the loop.
    case setting
    /// On the loop.
    case set(Scheduled<T>)
    /// Cancelled before the request reached the loop.
    case cancelled
}
