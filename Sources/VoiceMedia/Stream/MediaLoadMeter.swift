import VoiceSupport

/// How busy a media worker is: the share of wall time its ticks took over the last complete
/// window. A pure value driven by the tick times it is given.
///
/// A tick's time includes any time its thread was preempted, so a worker sharing its core with
/// other busy threads reads as loaded even when its own work is small: what matters for new
/// calls is whether the worker still gets its ticks done.
package struct MediaLoadMeter: Hashable, Sendable {
    /// The length of one measurement window.
    package let window: MediaTime
    private var windowStart: MediaTime?
    private var busy: Int64 = 0
    /// The load of the last complete window (0...1), nil before the first one closes.
    package private(set) var load: Double?

    /// A meter over windows of `window` (must be positive).
    package init(window: MediaTime = .milliseconds(500)) {
        precondition(window.nanoseconds > 0, "window must be positive")
        self.window = window
    }

    /// Records a tick that took `busy` and ended at `end`; returns the new load when this tick
    /// closes a window.
    package mutating func record(busy spent: MediaTime, endingAt end: MediaTime) -> Double? {
        guard let start = windowStart else {
            windowStart = end
            return nil
        }
        busy += max(0, spent.nanoseconds)
        let elapsed = (end - start).nanoseconds
        guard elapsed >= window.nanoseconds else { return nil }
        let value = min(1, Double(busy) / Double(elapsed))
        load = value
        windowStart = end
        busy = 0
        return value
    }
}
