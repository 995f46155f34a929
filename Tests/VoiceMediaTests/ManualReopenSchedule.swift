@testable import VoiceMedia
import VoiceSupport

/// A reopen schedule the test runs by hand: it records each attempt's delay and runs the
/// attempts only when told to.
final class ManualReopenSchedule: Sendable {
    private let jobs = Locked<[(delay: Duration, job: @Sendable () -> Void)]>([])

    /// The schedule to give a hub.
    var schedule: AudioDeviceReopenSchedule {
        AudioDeviceReopenSchedule { delay, job in self.jobs.withLock { $0.append((delay, job)) } }
    }

    /// Delays of the attempts scheduled and not run yet.
    var pendingDelays: [Duration] { jobs.withLock { $0.map(\.delay) } }

    /// Runs the attempts scheduled so far (not those they schedule); returns how many ran.
    @discardableResult
    func runPending() -> Int {
        let due = jobs.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for entry in due { entry.job() }
        return due.count
    }
}
