/// A block peak limiter for a conference mix: the mix is summed in 32 bits, so N talkers can
/// exceed 16 bits; the limiter scales each 10 ms block so that its peak stays under
/// ``ceiling`` instead of letting it clip (or, worse, wrap around).
///
/// Attack is instant (a block that would exceed the ceiling is scaled as a whole, never
/// overshooting); release is a linear ramp of at most ``releasePerBlock`` per block (about
/// 200 ms from half gain back to unity), ramped inside the block so that no step is heard.
/// Every gain applied is at most what the block's peak allows, so nothing clips; the final
/// conversion saturates all the same.
package struct ConferenceLimiter: Hashable, Sendable {
    /// The largest magnitude the limiter lets out: −0.3 dBFS.
    package static let ceiling: Int32 = 31_700
    /// How much the gain may rise per 10 ms block.
    package static let releasePerBlock: Float = 0.025

    /// The gain the last block ended with (1 when not limiting).
    package private(set) var gain: Float = 1

    package init() {}

    /// Scales `mix` (32-bit sums) into `output`, which holds at least as many samples.
    /// - Returns: the peak magnitude of `mix` before limiting.
    @discardableResult
    package mutating func limit(_ mix: UnsafeBufferPointer<Int32>, into output: UnsafeMutableBufferPointer<Int16>) -> Int32 {
        var peak: Int32 = 0
        for sample in mix { peak = max(peak, Int32(clamping: sample.magnitude)) }
        let allowed: Float = peak > Self.ceiling ? Float(Self.ceiling) / Float(peak) : 1
        let start = gain
        let end = allowed < start ? allowed : min(allowed, start + Self.releasePerBlock)
        gain = end
        if end == 1, start == 1 {
            for i in mix.indices { output[i] = Self.saturate(mix[i]) }
        } else if end < start {
            for i in mix.indices { output[i] = Self.saturate(Int32((Float(mix[i]) * end).rounded())) }
        } else {
            let step = mix.isEmpty ? 0 : (end - start) / Float(mix.count)
            var g = start
            for i in mix.indices {
                g += step
                output[i] = Self.saturate(Int32((Float(mix[i]) * g).rounded()))
            }
        }
        return peak
    }

    @inline(__always)
    static func saturate(_ value: Int32) -> Int16 {
        Int16(clamping: value)
    }
}
