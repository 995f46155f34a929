import Dispatch
import VoiceSupport

/// When a shared device that failed, or could not open for a reason that may pass, is tried
/// again, and where those attempts run.
///
/// The delays grow from 50 ms to a ceiling of 500 ms and stay there for as long as a call
/// still uses the device: the device is back within half a second of being available, and
/// an absent one costs two opens a second.
package struct AudioDeviceReopenSchedule: Sendable {
    /// Delay before the first attempt, then doubled per failed attempt.
    package var initialDelay: Duration
    /// The longest delay between two attempts.
    package var maximumDelay: Duration
    /// Runs `job` after `delay`, never before returning.
    package var run: @Sendable (_ delay: Duration, _ job: @escaping @Sendable () -> Void) -> Void

    /// A schedule with the given delays running attempts with `run`.
    package init(
        initialDelay: Duration = .milliseconds(50), maximumDelay: Duration = .milliseconds(500),
        run: @escaping @Sendable (Duration, @escaping @Sendable () -> Void) -> Void = AudioDeviceReopenSchedule.onDispatchQueue
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.run = run
    }

    /// The default: 50 ms doubling to 500 ms, attempts on a global dispatch queue (opening a
    /// PCM may block for a moment; never on a loop or a device thread).
    package static let standard = AudioDeviceReopenSchedule()

    /// Delay before attempt `attempt` (0 for the first).
    package func delay(beforeAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 0..<min(attempt, 16) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay)
    }

    /// Runs jobs on a global dispatch queue after the delay.
    package static let onDispatchQueue: @Sendable (Duration, @escaping @Sendable () -> Void) -> Void = { delay, job in
        let nanoseconds = Int(MediaTime(delay).nanoseconds)
        DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: job)
    }
}
