/// Time-scale modification of one decoded frame of 48 kHz speech, in place, for the jitter
/// buffer's ``JitterBufferPlayout/accelerate(length:duration:urgent:by:)`` and
/// ``JitterBufferPlayout/stretch(length:duration:urgent:by:)``: the frame is shortened or lengthened by
/// one pitch period, so the delay follows the network without dropping or inserting frames.
///
/// The method is the one NetEq's accelerate and preemptive expand use (a synchronized
/// overlap-add on a single period): find the lag `T` at which the start of the frame best
/// repeats itself, then
/// - accelerate: cross-fade `x[0..<T]` into `x[T..<2T]` and keep the rest, `T` samples fewer;
/// - stretch: keep `x[0..<T]`, cross-fade `x[T..<2T]` back into `x[0..<T]`, then play
///   `x[T...]`, `T` samples more.
/// Both begin and end on original samples, so the frame joins its neighbours without a click.
/// A frame whose start does not repeat (normalized correlation below ``correlationThreshold``)
/// is left alone unless it is quiet, where any cut is inaudible and the change asked for is made.
///
/// The lag is searched on a 4 kHz copy of the frame (mean of 12 samples), then refined at
/// 48 kHz around the best coarse lag. All storage is allocated in `init`; the calls allocate
/// nothing. Not synchronized: own it from one thread.
package struct TimeStretch: Sendable {
    /// Shortest period tried: 2.5 ms (400 Hz).
    package static let minimumPeriod = 120
    /// Longest period tried: 15 ms (67 Hz); never more than half the frame.
    package static let maximumPeriod = 720
    /// Decimation of the coarse search: 48 kHz to 4 kHz.
    static let decimation = 12

    /// Lowest normalized correlation between the two periods for a voiced frame to be changed.
    package var correlationThreshold: Float = 0.9
    /// RMS level (of 32 767) under which a frame counts as quiet and is changed at any correlation.
    package var quietLevel: Float = 256

    /// The frame's first two longest periods as floats, and their 4 kHz copy: the search's
    /// storage, allocated once.
    private var fine: [Float]
    private var coarse: [Float]

    package init() {
        fine = [Float](repeating: 0, count: 2 * Self.maximumPeriod)
        coarse = [Float](repeating: 0, count: 2 * Self.maximumPeriod / Self.decimation)
    }

    /// Shortens `buffer[0..<count]` in place by one period; returns the new count (`count`,
    /// clamped to the buffer, when the frame was left alone). With `voiced` false only a quiet
    /// frame is changed. A quiet frame without a period loses `quietChange` samples (clamped to
    /// the periods tried; nil: the longest).
    package mutating func accelerate(
        _ buffer: UnsafeMutableBufferPointer<Int16>, count: Int, voiced: Bool = true, quietChange: Int? = nil
    ) -> Int {
        let n = max(0, min(count, buffer.count))
        guard let t = period(in: UnsafeBufferPointer(rebasing: buffer[0..<n]), voiced: voiced, quietChange: quietChange),
            let x = buffer.baseAddress
        else { return n }
        for k in 0..<t {
            x[k] = Self.fade(out: x[k], in: x[t + k], step: k, of: t)
        }
        (x + t).update(from: x + 2 * t, count: n - 2 * t)
        return n - t
    }

    /// Lengthens `buffer[0..<count]` in place by one period if `buffer` has room for it;
    /// returns the new count (`count`, clamped to the buffer, when the frame was left alone).
    /// With `voiced` false only a quiet frame is changed; a quiet frame without a period gains
    /// `quietChange` samples (clamped to the periods tried; nil: the longest).
    package mutating func stretch(
        _ buffer: UnsafeMutableBufferPointer<Int16>, count: Int, voiced: Bool = true, quietChange: Int? = nil
    ) -> Int {
        let n = max(0, min(count, buffer.count))
        guard let t = period(in: UnsafeBufferPointer(rebasing: buffer[0..<n]), voiced: voiced, quietChange: quietChange),
            n + t <= buffer.count,
            let x = buffer.baseAddress
        else { return n }
        // x[T...] moves up by T; the gap x[T..<2T] becomes the fade from the old x[T..<2T]
        // (now at x[2T..<3T]) back to x[0..<T].
        (x + 2 * t).update(from: x + t, count: n - t)
        for k in 0..<t {
            x[t + k] = Self.fade(out: x[2 * t + k], in: x[k], step: k, of: t)
        }
        return n + t
    }

    /// The period to cut or repeat at the start of `x`, or nil when the frame should be left
    /// alone; with `voiced` false, nil unless the frame is quiet. A quiet frame without a
    /// period gets `quietChange` (clamped to the periods tried; nil: the longest).
    package mutating func period(in x: UnsafeBufferPointer<Int16>, voiced: Bool = true, quietChange: Int? = nil) -> Int? {
        let n = x.count
        let longest = min(Self.maximumPeriod, n / 2)
        guard longest >= Self.minimumPeriod else { return nil }
        // Quiet or not, measured once: a non-urgent request needs it before any search.
        let quiet = voiced ? nil : Self.rms(x, count: 2 * longest) < quietLevel
        if quiet == false { return nil }
        // Only the first two longest periods take part: the lag and the window both end there.
        let span = 2 * longest
        let d = Self.decimation
        let best: (lag: Int, score: Float) = fine.withUnsafeMutableBufferPointer { high in
            coarse.withUnsafeMutableBufferPointer { low in
                guard let h = high.baseAddress, let l = low.baseAddress else { return (0, -2) }
                for k in 0..<span { h[k] = Float(x[k]) }
                for i in 0..<(span / d) {
                    var sum: Float = 0
                    for j in 0..<d { sum += h[i * d + j] }
                    l[i] = sum / Float(d)
                }
                let coarseLag = Self.bestLag(in: l, from: Self.minimumPeriod / d, through: longest / d, window: longest / d).lag
                return Self.bestLag(
                    in: h, from: max(Self.minimumPeriod, coarseLag * d - d + 1), through: min(longest, coarseLag * d + d - 1),
                    window: longest)
            }
        }
        guard best.lag > 0, 2 * best.lag <= n else { return nil }
        if voiced, best.score >= correlationThreshold { return best.lag }
        // Quiet and not periodic: any cut is inaudible, so make the change asked for (the delay
        // lands on its target instead of overshooting and swinging back).
        guard quiet ?? (Self.rms(x, count: 2 * longest) < quietLevel) else { return nil }
        return min(longest, max(Self.minimumPeriod, quietChange ?? longest))
    }

    /// The lag in `first...last` at which `s[lag..<lag+window]` correlates best (normalized)
    /// with `s[0..<window]`; `s` holds at least `last + window` samples. Lag 0 and score -2
    /// when the range is empty; score 0 against silence.
    static func bestLag(in s: UnsafeMutablePointer<Float>, from first: Int, through last: Int, window: Int) -> (lag: Int, score: Float) {
        var best = (lag: 0, score: Float(-2))
        guard first <= last else { return best }
        let aa = dot(s, s, window)
        // The lagged window's energy slides along with the lag (in Double: no cancellation
        // when a loud start slides out of a quiet window).
        var bb = Double(dot(s + first, s + first, window))
        for lag in first...last {
            let ab = dot(s, s + lag, window)
            let score = aa > 0 && bb > 0 ? ab / (aa * Float(bb)).squareRoot() : 0
            if score > best.score { best = (lag, score) }
            guard lag < last else { break }
            let leaving = Double(s[lag]), entering = Double(s[lag + window])
            bb = max(0, bb - leaving * leaving + entering * entering)
        }
        return best
    }

    /// `a[0..<n] · b[0..<n]`, eight lanes at a time.
    @inline(__always) static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>()
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        let stride = MemoryLayout<Float>.stride
        var k = 0
        while k + 16 <= n {
            s0 += ra.loadUnaligned(fromByteOffset: k * stride, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: k * stride, as: SIMD8<Float>.self)
            s1 += ra.loadUnaligned(fromByteOffset: (k + 8) * stride, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: (k + 8) * stride, as: SIMD8<Float>.self)
            k += 16
        }
        var sum = (s0 + s1).sum()
        while k < n {
            sum += a[k] * b[k]
            k += 1
        }
        return sum
    }

    static func rms(_ x: UnsafeBufferPointer<Int16>, count: Int) -> Float {
        guard count > 0 else { return 0 }
        var sum: Float = 0
        for k in 0..<count {
            let v = Float(x[k])
            sum += v * v
        }
        return (sum / Float(count)).squareRoot()
    }

    /// Linear cross-fade at `step` of `length`: all `out` at 0, nearly all `in` at the end.
    @inline(__always) static func fade(out a: Int16, in b: Int16, step: Int, of length: Int) -> Int16 {
        let w = Float(step) / Float(length)
        let v = Float(a) * (1 - w) + Float(b) * w
        return Int16(max(-32_768, min(32_767, v.rounded())))
    }
}
