#if canImport(Glibc)
    import Glibc
#endif

/// A point on a monotonic clock, in nanoseconds. Pure media state machines take it as input
/// instead of reading a clock, so tests drive them on a virtual clock.
public struct MediaTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary origin.
    public var nanoseconds: Int64

    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    @inlinable public static func milliseconds(_ ms: Int64) -> MediaTime { MediaTime(nanoseconds: ms * 1_000_000) }
    @inlinable public static func microseconds(_ us: Int64) -> MediaTime { MediaTime(nanoseconds: us * 1_000) }
    @inlinable public static func seconds(_ s: Double) -> MediaTime { MediaTime(nanoseconds: Int64(s * 1e9)) }
    public static let zero = MediaTime(nanoseconds: 0)

    @inlinable public var milliseconds: Double { Double(nanoseconds) / 1e6 }
    @inlinable public var seconds: Double { Double(nanoseconds) / 1e9 }

    @inlinable public static func < (a: MediaTime, b: MediaTime) -> Bool { a.nanoseconds < b.nanoseconds }
    @inlinable public static func + (a: MediaTime, b: MediaTime) -> MediaTime { MediaTime(nanoseconds: a.nanoseconds + b.nanoseconds) }
    @inlinable public static func - (a: MediaTime, b: MediaTime) -> MediaTime { MediaTime(nanoseconds: a.nanoseconds - b.nanoseconds) }
    @inlinable public static func += (a: inout MediaTime, b: MediaTime) { a.nanoseconds += b.nanoseconds }
    public var description: String { "\(milliseconds) ms" }
}

/// A source of ``MediaTime``. Drivers read one; tests inject ``ManualMediaClock``.
public protocol MediaClock: Sendable {
    /// The current time.
    func now() -> MediaTime
}

/// The system monotonic clock (`CLOCK_MONOTONIC`).
public struct MonotonicMediaClock: MediaClock {
    public init() {}
    public func now() -> MediaTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MediaTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// A clock that moves only when told to: for tests of code that reads a ``MediaClock``.
public final class ManualMediaClock: MediaClock {
    private let time: Locked<MediaTime>

    /// A clock standing at `start`.
    public init(start: MediaTime = .zero) { time = Locked(start) }

    public func now() -> MediaTime { time.withLock { $0 } }

    /// Moves the clock forward by `interval`.
    public func advance(by interval: MediaTime) { time.withLock { $0 += interval } }

    /// Sets the clock to `instant`.
    public func set(to instant: MediaTime) { time.withLock { $0 = instant } }
}
