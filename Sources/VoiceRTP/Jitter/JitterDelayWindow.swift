/// Sliding window of per-packet relative delays (arrival minus send time, in nanoseconds) with
/// its minimum and a quantile. Storage is allocated once in `init`; `add` and `refresh` allocate
/// nothing. Beside the samples in arrival order the window keeps them sorted: a new sample is
/// placed by binary search and the one it evicts is taken out the same way, so the minimum and
/// the quantile are read off, not searched for (a media thread serving hundreds of streams pays
/// this per packet).
struct JitterDelayWindow: Sendable {
    private var samples: [Int64]
    private var sorted: [Int64]
    private var next = 0
    private(set) var count = 0
    private let quantile: Double
    /// Smallest delay in the window (valid when `count > 0`).
    private(set) var minimum: Int64 = 0
    /// The `quantile` delay in the window, nearest-rank (valid when `count > 0`).
    private(set) var quantileValue: Int64 = 0

    init(size: Int, quantile: Double) {
        samples = [Int64](repeating: 0, count: max(1, size))
        sorted = [Int64](repeating: 0, count: max(1, size))
        self.quantile = quantile
    }

    /// Adds one sample, evicting the oldest when full. O(log window) to find the places, and a
    /// memory move of at most the window.
    mutating func add(_ delay: Int64) {
        let n = count
        let full = n == samples.count
        let evicted = samples[next]
        samples[next] = delay
        next = next + 1 == samples.count ? 0 : next + 1
        sorted.withUnsafeMutableBufferPointer { s in
            var length = n
            if full {
                // The evicted value is in the sorted copy: remove its first occurrence.
                let at = Self.lowerBound(evicted, in: s, count: length)
                if at < length - 1, let base = s.baseAddress {
                    Self.move(base + at + 1, to: base + at, count: length - at - 1)
                }
                length -= 1
            }
            let at = Self.lowerBound(delay, in: s, count: length)
            if at < length, let base = s.baseAddress {
                Self.move(base + at, to: base + at + 1, count: length - at)
            }
            s[at] = delay
        }
        count = full ? n : n + 1
    }

    /// Empties the window.
    mutating func removeAll() {
        next = 0
        count = 0
        minimum = 0
        quantileValue = 0
    }

    /// Reads `minimum` and `quantileValue` off the sorted samples. O(1).
    mutating func refresh() {
        guard count > 0 else { return }
        let rank = min(count - 1, max(0, Int((quantile * Double(count)).rounded(.up)) - 1))
        minimum = sorted[0]
        quantileValue = sorted[rank]
    }

    /// Moves `count` values that may overlap their destination (memmove).
    private static func move(_ from: UnsafeMutablePointer<Int64>, to: UnsafeMutablePointer<Int64>, count: Int) {
        UnsafeMutableRawPointer(to).copyMemory(from: from, byteCount: count * MemoryLayout<Int64>.stride)
    }

    /// The first index of the first `count` (sorted) values whose value is not below `value`.
    private static func lowerBound(_ value: Int64, in a: UnsafeMutableBufferPointer<Int64>, count: Int) -> Int {
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if a[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
