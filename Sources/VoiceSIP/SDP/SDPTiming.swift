/// A `t=<start> <stop>` line (NTP seconds; `0 0` for an unbounded session) with its `r=` lines.
package struct SDPTiming: Hashable, Sendable {
    /// Start time, 0 for unbounded.
    package var start: UInt64
    /// Stop time, 0 for unbounded.
    package var stop: UInt64
    /// The `r=` lines that follow, verbatim.
    package var repeats: [String]

    /// Creates a timing; the default is the `t=0 0` that calls use.
    package init(start: UInt64 = 0, stop: UInt64 = 0, repeats: [String] = []) {
        self.start = start
        self.stop = stop
        self.repeats = repeats
    }
}
