/// The longest stretch of missing audio in a recording of a continuous signal.
package enum AudioGap {
    /// The longest run of 20 ms windows (48 kHz) whose level is under a tenth of the
    /// recording's median level, from sample `start` to 0.5 s before the end (the hang-up), in ms.
    package static func longest(in samples: [Int16], after start: Int) -> Int {
        let window = 960
        let end = max(start, samples.count - 24_000)
        guard end - start >= 2 * window else { return 0 }
        let levels = stride(from: start, to: end - window, by: window).map { offset -> Double in
            var sum = 0.0
            for sample in samples[offset..<(offset + window)] { sum += Double(sample) * Double(sample) }
            return (sum / Double(window)).squareRoot()
        }
        let median = levels.sorted()[levels.count / 2]
        var longest = 0
        var run = 0
        for level in levels {
            run = level < median / 10 ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest * 20
    }
}
