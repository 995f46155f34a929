import Foundation

/// Compares a received recording with the signal that was sent.
public enum AudioComparison {
    /// The result of aligning two signals.
    public struct Alignment: Sendable, CustomStringConvertible {
        /// Samples by which the output lags the reference.
        public var lag: Int
        /// Normalised cross-correlation at that lag, −1…1.
        public var correlation: Double
        /// Signal-to-noise ratio of the output against the gain-matched reference, in dB.
        public var snrDB: Double
        public var description: String {
            "lag \(lag) samples, correlation \(String(format: "%.3f", correlation)), SNR \(String(format: "%.1f", snrDB)) dB"
        }
    }

    /// Finds the lag (0…maxLag samples) at which `output` best matches `reference`, first on a
    /// coarse decimated envelope-free signal, then refined at the full rate.
    public static func align(reference: [Int16], output: [Int16], maxLag: Int, decimation: Int = 24) -> Alignment {
        let ref = reference.map(Double.init)
        let out = output.map(Double.init)
        func decimate(_ x: [Double]) -> [Double] {
            stride(from: 0, to: x.count - decimation + 1, by: decimation).map { i in
                var s = 0.0
                for j in 0..<decimation { s += x[i + j] }
                return s / Double(decimation)
            }
        }
        let rd = decimate(ref), od = decimate(out)
        var bestCoarse = 0
        var bestValue = -Double.infinity
        for lag in 0...(maxLag / decimation) {
            let c = correlation(rd, od, lag: lag)
            if c > bestValue { bestValue = c; bestCoarse = lag * decimation }
        }
        var best = bestCoarse
        bestValue = -Double.infinity
        for lag in max(0, bestCoarse - 2 * decimation)...(bestCoarse + 2 * decimation) {
            let c = correlation(ref, out, lag: lag)
            if c > bestValue { bestValue = c; best = lag }
        }
        return Alignment(lag: best, correlation: bestValue, snrDB: snr(ref, out, lag: best))
    }

    /// Aligns `output` with a signal that a peer plays in a loop, from wherever in the loop the
    /// recording happens to start (a peer may have been sending before the recording began).
    /// The returned lag is the position in `loop` where `output` starts, 0..<loop.count.
    public static func alignToLoop(_ loop: [Int16], output: [Int16], decimation: Int = 24) -> Alignment {
        guard !loop.isEmpty, !output.isEmpty else { return Alignment(lag: 0, correlation: 0, snrDB: -100) }
        let periods = (output.count + 2 * loop.count - 1) / loop.count
        let repeated = Array([[Int16]](repeating: loop, count: periods).joined())
        return align(reference: output, output: repeated, maxLag: loop.count - 1, decimation: decimation)
    }

    /// Normalised correlation of `x` with `y` shifted left by `lag`.
    static func correlation(_ x: [Double], _ y: [Double], lag: Int) -> Double {
        let n = min(x.count, y.count - lag)
        guard n > 0 else { return -1 }
        var xy = 0.0, xx = 0.0, yy = 0.0
        for i in 0..<n {
            let a = x[i], b = y[i + lag]
            xy += a * b; xx += a * a; yy += b * b
        }
        guard xx > 0, yy > 0 else { return 0 }
        return xy / (xx * yy).squareRoot()
    }

    static func snr(_ x: [Double], _ y: [Double], lag: Int) -> Double {
        let n = min(x.count, y.count - lag)
        guard n > 0 else { return -100 }
        var xy = 0.0, xx = 0.0
        for i in 0..<n { xy += x[i] * y[i + lag]; xx += x[i] * x[i] }
        let g = xx > 0 ? xy / xx : 0
        var sig = 0.0, noise = 0.0
        for i in 0..<n {
            let s = g * x[i]
            let e = y[i + lag] - s
            sig += s * s; noise += e * e
        }
        return noise > 0 ? 10 * log10(sig / noise) : 100
    }

    /// The longest run of exact zeros inside `samples[range]`, in samples: a gap in the rendered timeline.
    public static func longestSilentRun(_ samples: [Int16], in range: Range<Int>) -> Int {
        var best = 0, run = 0
        for i in range.clamped(to: 0..<samples.count) {
            if samples[i] == 0 { run += 1; best = max(best, run) } else { run = 0 }
        }
        return best
    }
}
