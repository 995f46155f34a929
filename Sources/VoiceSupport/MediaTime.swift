#if canImport(Glibc)
    import Glibc
#endif

/// A point on a monotonic clock, in nanoseconds. Pure media state machines take it as input
/// instead of reading a clock, so tests drive them on a virtual clock.
package struct MediaTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary origin.
    package var nanoseconds: Int64

    @inlinable package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    @inlinable package static func milliseconds(_ ms: Int64) -> MediaTime { MediaTime(nanoseconds: ms * 1_000_000) }
    @inlinable package static func microseconds(_ us: Int64) -> MediaTime { MediaTime(nanoseconds: us * 1_000) }
    @inlinable package static func seconds(_ s: Double) -> MediaTime { MediaTime(nanoseconds: Int64(s * 1e9)) }
    package static let zero = MediaTime(nanoseconds: 0)

    @inlinable package var milliseconds: Double { Double(nanoseconds) / 1e6 }
    @inlinable package var seconds: Double { Double(nanoseconds) / 1e9 }

    @inlinable package static func < (a: MediaTime, b: MediaTime) -> Bool { a.nanoseconds < b.nanoseconds }
    @inlinable package static func + (a: MediaTime, b: MediaTime) -> MediaTime { MediaTime(nanoseconds: a.nanoseconds + b.nanoseconds) }
    @inlinable package static func - (a: MediaTime, b: MediaTime) -> MediaTime { MediaTime(nanoseconds: a.nanoseconds - b.nanoseconds) }
    @inlinable package static func += (a: inout MediaTime, b: MediaTime) { a.nanoseconds += b.nanoseconds }
    package var description: String { "\(milliseconds) ms" }
}

/// A source of ``MediaTime``. Drivers read one; tests inject ``ManualMediaClock``.
package protocol MediaClock: Sendable {
    /// The current time.
    func now() -> MediaTime
}

/// The system monotonic clock (`CLOCK_MONOTONIC`).
package struct MonotonicMediaClock: MediaClock {
    package init() {}
    package func now() -> MediaTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MediaTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// A clock that moves only when told to: for tests of code that reads a ``MediaClock``.
package final class ManualMediaClock: MediaClock {
    private let time: Locked<MediaTime>

    /// A clock standing at `start`.
    package init(start: MediaTime = .zero) { time = Locked(start) }

    package func now() -> MediaTime { time.withLock { $0 } }

    /// Moves the clock forward by `interval`.
    package func advance(by interval: MediaTime) { time.withLock { $0 += interval } }

    /// Sets the clock to `instant`.
    package func set(to instant: MediaTime) { time.withLock { $0 = instant } }
}

extension MediaTime {
    /// The time span `duration`, to the nanosecond (saturating past ±292 years).
    package init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self.init(nanoseconds: overflow ? (seconds < 0 ? .min : .max) : whole &+ attoseconds / 1_000_000_000)
    }
}

extension Duration {
    /// The span `time` measures from its origin.
    package init(_ time: MediaTime) { self = .nanoseconds(time.nanoseconds) }
}
