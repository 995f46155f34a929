#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import VoiceSupport

/// Jobs handed from any thread to one worker thread that sleeps in `poll`: queued under a lock,
/// an eventfd (``wake``, which the worker polls with its own descriptors) written to wake it.
/// What the DNS resolvers' threads take their lookups from.
final class WakingJobQueue<Job: Sendable>: Sendable {
    private let jobs = Locked<(queued: [Job], stopped: Bool)>(([], false))
    /// The eventfd the worker polls; readable when jobs (or the stop) are waiting.
    let wake: Int32

    /// Nil when no eventfd can be made.
    init?() {
        wake = CVoiceSys.eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else { return nil }
    }

    /// Queues `job` and wakes the worker; false (nothing queued) once stopped.
    func enqueue(_ job: Job) -> Bool {
        let accepted = jobs.withLock { jobs in
            guard !jobs.stopped else { return false }
            jobs.queued.append(job)
            return true
        }
        if accepted { signal() }
        return accepted
    }

    /// Asks the worker to stop (idempotent).
    func stop() {
        let first = jobs.withLock { jobs in
            defer { jobs.stopped = true }
            return !jobs.stopped
        }
        if first { signal() }
    }

    /// On the worker: the jobs queued since the last take, and whether it is to stop.
    func take() -> (jobs: [Job], stopped: Bool) {
        jobs.withLock { jobs in
            defer { jobs.queued.removeAll() }
            return (jobs.queued, jobs.stopped)
        }
    }

    /// On the worker, after `poll` said ``wake`` is readable: clears it.
    func drainWake() {
        var count: UInt64 = 0
        _ = read(wake, &count, MemoryLayout<UInt64>.size)
    }

    private func signal() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }
}
