#if canImport(Glibc)
    import Glibc
#endif
import VoiceSupport

/// The wake-up times of a periodic real-time loop: absolute deadlines one period apart, so
/// sleeping never accumulates drift, restarted from the current time after a stall.
///
/// A pure value (time is passed in); ``sleep(until:)`` does the actual waiting.
struct PeriodicDeadline: Hashable, Sendable {
    /// Time between deadlines.
    let period: MediaTime
    /// How late the loop may run before the timeline restarts from now instead of bursting to catch up.
    let resyncAfter: MediaTime
    /// The latest deadline handed out.
    private(set) var current: MediaTime

    init(start: MediaTime, period: MediaTime, resyncAfterPeriods: Int64) {
        self.period = period
        self.resyncAfter = MediaTime(nanoseconds: period.nanoseconds * resyncAfterPeriods)
        self.current = start
    }

    /// Moves to the next deadline given the time `now`; returns it (a time not after `now` means "go at once").
    mutating func advance(now: MediaTime) -> MediaTime {
        current += period
        if now - current > resyncAfter { current = now }
        return current
    }

    /// Sleeps until `deadline` (a ``MonotonicMediaClock`` time) with `clock_nanosleep(TIMER_ABSTIME)`,
    /// resuming after signals. Returns at once if it has passed.
    static func sleep(until deadline: MediaTime) {
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
