/// What a real-time call played of a signal, judged window by window, each window at its own lag.
///
/// A call on a loaded machine legitimately shifts its timeline: a paced device that misses its
/// deadlines by more than it may catch up drops buffers, a stalled media thread lets a ring
/// buffer under- or overrun, the jitter buffer re-plans its delay after a burst. Each shift moves
/// the rest of the recording against the signal, so a single lag for the whole recording
/// (``AudioComparison/align(reference:output:maxLag:decimation:)``) matches only the part on one
/// side of it: audio that arrived intact then scores 0.3–0.7, as if it were broken.
///
/// Here each 100 ms window of the recording finds its own place in the signal, and the score is
/// the median of the windows' correlations, each window weighted by the energy of the signal it
/// matched (so the pauses of speech count for little). The windows a stall cuts through, and the
/// silence of an underrun, are a minority that the median passes over; audio that is not the
/// signal (noise, another signal, a wrong rate) or is not there at all scores low in most windows,
/// and so in the median. Continuity is not judged here: the tests count packets and gaps for that.
public struct WindowedAlignment: CustomStringConvertible, Sendable {
    /// The energy-weighted median of the windows' correlations, −1…1 (0 without a whole window).
    public let correlation: Double
    /// Each window's correlation at its best lag.
    public let windowCorrelations: [Double]
    /// Each window's lag: samples by which the output lags the signal there.
    public let lags: [Int]

    public var description: String {
        let sorted = windowCorrelations.sorted()
        let lowest = sorted.prefix(3).map { String(format: "%.2f", $0) }.joined(separator: ", ")
        return "median correlation \(String(format: "%.3f", correlation)) over \(lags.count) windows (lowest \(lowest)), "
            + "lags \(lags.min() ?? 0)…\(lags.max() ?? 0)"
    }

    /// The smallest lag of a window that matches the signal well (correlation above `minimum`):
    /// the latency the call reached, which a stall can raise but not lower.
    public func smallestLag(ofWindowsAbove minimum: Double = 0.9) -> Int? {
        zip(lags, windowCorrelations).filter { $0.1 > minimum }.map(\.0).min()
    }

    /// Compares what `output` (recorded at `sampleRate`) played of `signal`: from where playout
    /// starts (the first non-zero sample) for nine tenths of the signal's length (a call's first
    /// packets are on probation and unplayed, so the signal's very end may be missing).
    public init(played signal: [Int16], in output: [Int16], sampleRate: Int = 48_000) {
        let start = output.firstIndex { $0 != 0 } ?? output.count
        self.init(
            reference: signal, output: output, range: start..<(start + signal.count * 9 / 10),
            lags: -(sampleRate / 10)...sampleRate, window: sampleRate / 10, decimation: sampleRate / 2_000)
    }

    /// Compares what `output` (recorded at `sampleRate`) played of `loop`, which a peer plays over
    /// and over from wherever it had got to: from where playout starts (the first non-zero
    /// sample) to where it ends (the last). A lag is then the position in the repeated loop.
    public init(playedInALoop loop: [Int16], in output: [Int16], sampleRate: Int = 48_000) {
        let start = output.firstIndex { $0 != 0 } ?? output.count
        // All silence: an empty range (no windows, correlation 0), not a crash.
        let end = max(start, (output.lastIndex { $0 != 0 } ?? 0) + 1)
        let repeated = Array([[Int16]](repeating: loop, count: output.count / max(1, loop.count) + 3).joined())
        self.init(
            reference: repeated, output: output, range: start..<end,
            lags: -(loop.count + sampleRate / 10)...sampleRate, window: sampleRate / 10, decimation: sampleRate / 2_000)
    }

    /// Compares `output[range]` with `reference` in windows of `window` samples, each at the lag
    /// in `lags` (samples by which the output is behind the reference) where it matches best:
    /// first on a decimated signal, then refined at the full rate.
    init(reference: [Int16], output: [Int16], range: Range<Int>, lags lagRange: ClosedRange<Int>, window: Int, decimation: Int) {
        let ref = reference.map(Double.init)
        let out = output.map(Double.init)
        let refCoarse = Self.decimate(ref, by: decimation)
        let outCoarse = Self.decimate(out, by: decimation)
        var correlations: [Double] = [], weights: [Double] = [], lags: [Int] = []
        let window = window / decimation * decimation
        var start = (max(0, range.lowerBound) + decimation - 1) / decimation * decimation
        while start + window <= min(range.upperBound, out.count) {
            var coarse: Int?
            var bestValue = -Double.infinity
            var lag = lagRange.lowerBound / decimation * decimation
            while lag <= lagRange.upperBound {
                let at = start - lag
                if at >= 0, at + window <= ref.count {
                    let c = Self.sums(refCoarse, at / decimation, outCoarse, start / decimation, window / decimation).correlation
                    if c > bestValue { bestValue = c; coarse = lag }
                }
                lag += decimation
            }
            guard let coarse else { break }
            var best = Self.sums(ref, start - coarse, out, start, window)
            var bestLag = coarse
            for candidate in (coarse - 2 * decimation)...(coarse + 2 * decimation) {
                let at = start - candidate
                guard at >= 0, at + window <= ref.count else { continue }
                let s = Self.sums(ref, at, out, start, window)
                if s.correlation > best.correlation { best = s; bestLag = candidate }
            }
            correlations.append(best.correlation)
            weights.append(best.xx)
            lags.append(bestLag)
            start += window
        }
        self.windowCorrelations = correlations
        self.lags = lags
        // The weighted median: the correlation at which half the matched signal energy is reached.
        let total = weights.reduce(0, +)
        var median = 0.0
        var reached = 0.0
        for (c, w) in zip(correlations, weights).sorted(by: { $0.0 < $1.0 }) where total > 0 {
            reached += w
            median = c
            if reached >= total / 2 { break }
        }
        self.correlation = median
    }

    private struct Sums {
        var xy = 0.0, xx = 0.0, yy = 0.0
        var correlation: Double { xx > 0 && yy > 0 ? xy / (xx * yy).squareRoot() : 0 }
    }

    private static func sums(_ x: [Double], _ xStart: Int, _ y: [Double], _ yStart: Int, _ count: Int) -> Sums {
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeBufferPointer { yp in
                var s = Sums()
                var i = 0
                while i < count {
                    let a = xp[xStart + i], b = yp[yStart + i]
                    s.xy += a * b
                    s.xx += a * a
                    s.yy += b * b
                    i += 1
                }
                return s
            }
        }
    }

    private static func decimate(_ x: [Double], by factor: Int) -> [Double] {
        stride(from: 0, to: x.count - factor + 1, by: factor).map { i in
            var s = 0.0
            for j in 0..<factor { s += x[i + j] }
            return s / Double(factor)
        }
    }
}
