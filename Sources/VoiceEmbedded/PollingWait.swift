import Foundation
import VoiceSupport

/// Polls a condition until it holds or a deadline passes, for tests that watch real sockets,
/// processes and threads (where no event can be awaited directly).
///
/// A test that runs in virtual time installs a ``Driver`` for its thread: the waits on that
/// thread then advance virtual time instead of sleeping, and their timeouts are virtual too, so
/// the same test code runs either way.
package enum PollingWait {
    /// Moves virtual time on: the test's world (event loops, media engine, queues) runs what
    /// falls due in the next `seconds`.
    package struct Driver: Sendable {
        let thread: pthread_t
        let id: Int
        let advance: @Sendable (TimeInterval) -> Void
    }

    private static let driver = Locked<(current: Driver?, installed: Int)>((nil, 0))

    /// Makes the waits on the calling thread advance virtual time with `advance` until
    /// ``removeDriver(_:)`` with the returned id (or a later install).
    @discardableResult
    package static func installDriver(_ advance: @escaping @Sendable (TimeInterval) -> Void) -> Int {
        driver.withLock { d in
            d.installed += 1
            d.current = Driver(thread: pthread_self(), id: d.installed, advance: advance)
            return d.installed
        }
    }

    /// Back to real time, if the driver installed as `id` is still the one in force (nil: whichever is).
    package static func removeDriver(_ id: Int? = nil) {
        driver.withLock { d in
            if id == nil || d.current?.id == id { d.current = nil }
        }
    }

    /// The driver for the calling thread, if it runs in virtual time.
    private static var currentDriver: Driver? {
        driver.withLock { d in d.current.flatMap { pthread_equal($0.thread, pthread_self()) != 0 ? $0 : nil } }
    }

    /// True once `condition` held, false after `timeout` seconds (virtual ones in virtual time).
    package static func until(timeout: TimeInterval, every interval: TimeInterval = 0.005, _ condition: () -> Bool) -> Bool {
        if let virtual = currentDriver {
            let step = max(interval, 0.005)
            var elapsed = 0.0
            while !condition() {
                if elapsed > timeout { return false }
                virtual.advance(step)
                elapsed += step
            }
            return true
        }
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: interval)
        }
        return true
    }

    /// Lets `seconds` pass: virtual ones in virtual time, else real ones.
    package static func sleep(_ seconds: TimeInterval) {
        if let virtual = currentDriver {
            virtual.advance(seconds)
        } else {
            Thread.sleep(forTimeInterval: seconds)
        }
    }
}
