import Foundation

/// Polls a condition until it holds or a deadline passes, for tests that watch real sockets,
/// processes and threads (where no event can be awaited directly).
package enum PollingWait {
    /// True once `condition` held, false after `timeout` seconds.
    package static func until(timeout: TimeInterval, every interval: TimeInterval = 0.005, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: interval)
        }
        return true
    }
}
