#if canImport(Glibc)
import Glibc
#endif

/// Absolute-deadline sleeping on `CLOCK_MONOTONIC`, so periodic loops do not drift.
enum MonotonicSleep {
    /// Sleeps until `deadline` (a ``MonotonicMediaClock`` time), resuming after signals. Returns at once if it has passed.
    static func sleep(until deadline: MediaTime) {
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
