/// Sliding window of per-packet relative delays (arrival minus send time, in nanoseconds) with
/// its minimum and a quantile. Storage is allocated once in `init`; `add` and `refresh` allocate
/// nothing (the quantile is found by in-place selection on a preallocated scratch copy).
struct JitterDelayWindow: Sendable {
    private var samples: [Int64]
    private var scratch: [Int64]
    private var next = 0
    private(set) var count = 0
    private var dirty = false
    private let quantile: Double
    /// Smallest delay in the window (valid when `count > 0`).
    private(set) var minimum: Int64 = 0
    /// The `quantile` delay in the window, nearest-rank (valid when `count > 0`).
    private(set) var quantileValue: Int64 = 0

    init(size: Int, quantile: Double) {
        samples = [Int64](repeating: 0, count: size)
        scratch = [Int64](repeating: 0, count: size)
        self.quantile = quantile
    }

    /// Adds one sample, evicting the oldest when full. O(1).
    mutating func add(_ delay: Int64) {
        samples[next] = delay
        next = next + 1 == samples.count ? 0 : next + 1
        count = min(count + 1, samples.count)
        dirty = true
    }

    /// Empties the window.
    mutating func removeAll() {
        next = 0
        count = 0
        dirty = false
        minimum = 0
        quantileValue = 0
    }

    /// Recomputes `minimum` and `quantileValue` if samples changed. O(window) on average.
    mutating func refresh() {
        guard dirty, count > 0 else { return }
        dirty = false
        let n = count
        let rank = min(n - 1, max(0, Int((quantile * Double(n)).rounded(.up)) - 1))
        var lowest = Int64.max
        samples.withUnsafeBufferPointer { src in
            scratch.withUnsafeMutableBufferPointer { dst in
                for i in 0..<n {
                    dst[i] = src[i]
                    lowest = min(lowest, src[i])
                }
                quantileValue = Self.select(rank, in: dst, count: n)
            }
        }
        minimum = lowest
    }

    /// Returns the `k`-th smallest of the first `count` values, reordering them in place
    /// (iterative quickselect, median-of-three pivot).
    private static func select(_ k: Int, in a: UnsafeMutableBufferPointer<Int64>, count: Int) -> Int64 {
        var lo = 0
        var hi = count - 1
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if a[mid] < a[lo] { a.swapAt(mid, lo) }
            if a[hi] < a[lo] { a.swapAt(hi, lo) }
            if a[hi] < a[mid] { a.swapAt(hi, mid) }
            let pivot = a[mid]
            var i = lo
            var j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                return a[k]
            }
        }
        return a[k]
    }
}
