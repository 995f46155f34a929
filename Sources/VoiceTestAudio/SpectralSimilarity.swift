import Foundation

/// How much a recording sounds like the signal that was sent: the short-time spectra of the two,
/// compared segment by segment, each segment at its own delay.
///
/// Waveform correlation (``WindowedAlignment``) asks for the same samples at the same instants,
/// which a receiver that works as designed does not deliver: time-scale modification removes or
/// repeats a pitch period to steer the jitter buffer's delay, concealment replaces a lost frame
/// with a plausible one, and a stall shifts the timeline. Each of these keeps the sound and
/// moves or reshapes the waveform, so a waveform score falls (0.77 for an intact multi-tone call
/// whose delay was being steered) while a listener hears nothing wrong. What they keep is the
/// spectrum over time, which is what this compares:
///
/// - 20 ms frames every 10 ms of the recording (Hann window), and every 2.5 ms of the signal, so
///   a segment can be placed to within 2.5 ms;
/// - each frame as its harmonic structure: the level in dB per FFT bin (47 Hz at 48 kHz, so the
///   harmonics of a voice and the lines of a tone are resolved) over the telephone band
///   150–3400 Hz that every codec here carries, at most 40 dB below the frame's loudest bin,
///   less its spectral envelope (the average over ±375 Hz). What is left is where the
///   harmonics and lines are, which a pitch-period splice or a concealed frame keeps, and which
///   another voice, other tones or a wrong sample rate do not share even where their loudness
///   and formants happen to match;
/// - 100 ms segments of the recording, each placed where its frames best match the signal (the
///   correlation of the two segments' values), the score being the median of the segments'
///   correlations weighted by the signal's energy where they matched.
///
/// Calibration (the package's tests): the signal played back exactly scores 1; through Opus or
/// G.711, with pitch periods removed or repeated every 100 ms, 0.9–0.98; with noise 20 dB below
/// it, about 0.85; another speech-like voice 0.6–0.7 (the same formants and rhythm, another
/// pitch); other tones, noise, a wrong rate or silence 0.1 or less.
public struct SpectralSimilarity: CustomStringConvertible, Sendable {
    /// The energy-weighted median of the segments' correlations, −1…1 (0 without a whole segment).
    public let score: Double
    /// Each segment's correlation where it matched best.
    public let segmentScores: [Double]
    /// Each segment's delay: samples by which the recording lags the signal there.
    public let lags: [Int]
    /// The sample rate the lags are in.
    public let sampleRate: Int

    /// The score as a percentage, 0…100 (negative correlations count as 0).
    public var percent: Int { Int((max(0, score) * 100).rounded()) }

    /// The median delay of the segments that matched well (score above `minimum`), in
    /// milliseconds: the latency the listener heard. Nil when none did.
    public func latencyMilliseconds(ofSegmentsAbove minimum: Double = 0.8) -> Int? {
        let good = zip(lags, segmentScores).filter { $0.1 > minimum }.map(\.0).sorted()
        guard !good.isEmpty else { return nil }
        return good[good.count / 2] * 1_000 / sampleRate
    }

    public var description: String {
        let sorted = segmentScores.sorted()
        let lowest = sorted.prefix(3).map { String(format: "%.2f", $0) }.joined(separator: ", ")
        return "spectral match \(String(format: "%.3f", score)) over \(lags.count) segments (lowest \(lowest)), "
            + "lags \(lags.min() ?? 0)…\(lags.max() ?? 0)"
    }

    /// Compares what `output` played of `signal`: from where playout starts (the first non-zero
    /// sample) for nine tenths of the signal's length, at delays of −100 ms…1 s.
    public init(played signal: [Int16], in output: [Int16], sampleRate: Int = 48_000) {
        let start = output.firstIndex { $0 != 0 } ?? output.count
        self.init(
            reference: signal, loops: false, output: output, range: start..<(start + signal.count * 9 / 10),
            lags: -(sampleRate / 10)...sampleRate, sampleRate: sampleRate)
    }

    /// Compares what `output` played of `loop`, which a peer plays over and over from wherever
    /// it had got to: from where playout starts (the first non-zero sample) to where it ends (the
    /// last). Every place in the loop is a candidate for every segment, and a lag is the
    /// segment's start less its place in the loop.
    public init(playedInALoop loop: [Int16], in output: [Int16], sampleRate: Int = 48_000) {
        let start = output.firstIndex { $0 != 0 } ?? output.count
        let end = max(start, (output.lastIndex { $0 != 0 } ?? 0) + 1)
        self.init(reference: loop, loops: true, output: output, range: start..<end, lags: 0...0, sampleRate: sampleRate)
    }

    /// Compares `output[range]` with `reference`, each 100 ms segment at the delay in `lags`
    /// (samples by which the output is behind the reference; every place in the reference when
    /// it `loops`) where it matches best: first every 10 ms, then to 2.5 ms around the best.
    init(reference: [Int16], loops: Bool, output: [Int16], range: Range<Int>, lags lagRange: ClosedRange<Int>, sampleRate: Int) {
        self.sampleRate = sampleRate
        let frameLength = sampleRate / 50
        let outputHop = sampleRate / 100
        let referenceHop = outputHop / 4
        let stride = outputHop / referenceHop
        let framesPerSegment = 10
        let segmentLength = framesPerSegment * outputHop
        let analysis = SpectrumAnalysis(frameLength: frameLength, sampleRate: sampleRate)
        // A loop is analysed once round, plus what a segment starting near its end runs into.
        var analysed = reference
        if loops, !reference.isEmpty {
            while analysed.count < reference.count + segmentLength + frameLength { analysed += reference }
        }
        let referenceFrames = analysis.frames(of: analysed, hop: referenceHop)
        let floor = (referenceFrames.power.max() ?? 0) * 1e-5
        let ref = analysis.features(referenceFrames, floor: floor)
        let span = (framesPerSegment - 1) * stride
        let lastUsable = referenceFrames.count - 1 - span
        var scores: [Double] = [], weights: [Double] = [], lags: [Int?] = []
        var start = max(0, range.lowerBound)
        let end = min(range.upperBound, output.count)
        while start + segmentLength + frameLength <= end + outputHop {
            let segmentSamples = Array(output[start..<min(output.count, start + segmentLength + frameLength)])
            let out = analysis.features(analysis.frames(of: segmentSamples, hop: outputHop, count: framesPerSegment), floor: floor)
            // Candidates: reference frame r0 lines up with the segment's first frame.
            let candidates: ClosedRange<Int>
            if loops {
                candidates = 0...min(lastUsable, reference.count / referenceHop - 1)
            } else {
                let first = max(0, Int((Double(start - lagRange.upperBound) / Double(referenceHop)).rounded(.up)))
                let last = min(lastUsable, Int((Double(start - lagRange.lowerBound) / Double(referenceHop)).rounded(.down)))
                guard first <= last else { break }
                candidates = first...last
            }
            guard candidates.lowerBound <= candidates.upperBound, lastUsable >= 0 else { break }
            if Self.isSilent(out) {
                // Nothing to place: it takes its place from its neighbours (below), and counts
                // as a dropout if the signal was sounding there.
                scores.append(0)
                weights.append(0)
                lags.append(nil)
            } else {
                var best = (score: -Double.infinity, frame: candidates.lowerBound)
                var r0 = candidates.lowerBound
                while r0 <= candidates.upperBound {
                    let c = Self.correlation(out, ref, r0: r0, stride: stride, frames: framesPerSegment, bins: analysis.bins.count)
                    if c > best.score { best = (c, r0) }
                    r0 += stride
                }
                for r0 in max(candidates.lowerBound, best.frame - stride + 1)...min(candidates.upperBound, best.frame + stride - 1) {
                    let c = Self.correlation(out, ref, r0: r0, stride: stride, frames: framesPerSegment, bins: analysis.bins.count)
                    if c > best.score { best = (c, r0) }
                }
                scores.append(best.score)
                weights.append(Self.energy(referenceFrames, at: best.frame, stride: stride, frames: framesPerSegment))
                lags.append(start - best.frame * referenceHop)
            }
            start += segmentLength
        }
        // A silent segment sits where the timeline of the nearest sounding one puts it.
        let placed = lags.indices.compactMap { i in lags[i].map { (i, $0) } }
        for i in lags.indices where lags[i] == nil {
            guard let nearest = placed.min(by: { abs($0.0 - i) < abs($1.0 - i) }) else { break }
            lags[i] = nearest.1
            let segmentStart = max(0, range.lowerBound) + i * segmentLength
            var position = segmentStart - nearest.1
            if loops, !reference.isEmpty { position = ((position % reference.count) + reference.count) % reference.count }
            // The neighbour's timeline is off by what the receiver has shifted since: the
            // signal counts as sounding there only if it sounds throughout ±50 ms.
            let predicted = Int((Double(position) / Double(referenceHop)).rounded())
            let slack = 5 * stride
            var quietest: Double?
            for r0 in max(0, predicted - slack)...max(0, min(lastUsable, predicted + slack)) where r0 <= lastUsable {
                let e = Self.energy(referenceFrames, at: r0, stride: stride, frames: framesPerSegment)
                quietest = min(quietest ?? e, e)
            }
            weights[i] = quietest ?? 0
        }
        segmentScores = scores
        self.lags = lags.map { $0 ?? 0 }
        let total = weights.reduce(0, +)
        var median = 0.0
        var reached = 0.0
        for (c, w) in zip(scores, weights).sorted(by: { $0.0 < $1.0 }) where total > 0 {
            reached += w
            median = c
            if reached >= total / 2 { break }
        }
        score = median
    }

    /// Whether a segment's features are flat (nothing was played in it).
    private static func isSilent(_ features: [Double]) -> Bool {
        features.allSatisfy { abs($0) < 1e-9 }
    }

    /// The signal's energy in the frames a segment matched.
    private static func energy(_ frames: SpectrumFrames, at r0: Int, stride: Int, frames count: Int) -> Double {
        var e = 0.0
        for f in 0..<count where r0 + f * stride < frames.count { e += frames.energy[r0 + f * stride] }
        return e
    }

    /// Pearson correlation of a segment's values with the reference's frames r0, r0+stride, ….
    private static func correlation(_ out: [Double], _ ref: [Double], r0: Int, stride: Int, frames: Int, bins: Int) -> Double {
        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        out.withUnsafeBufferPointer { o in
            ref.withUnsafeBufferPointer { r in
                guard let ob = o.baseAddress, let rb = r.baseAddress else { return }
                for f in 0..<frames {
                    let x = ob + f * bins
                    let y = rb + (r0 + f * stride) * bins
                    var b = 0
                    while b < bins {
                        let u = x[b], v = y[b]
                        sx += u
                        sy += v
                        sxx += u * u
                        syy += v * v
                        sxy += u * v
                        b += 1
                    }
                }
            }
        }
        let n = Double(frames * bins)
        let vx = sxx - sx * sx / n, vy = syy - sy * sy / n
        guard vx > 1e-9, vy > 1e-9 else { return 0 }
        return (sxy - sx * sy / n) / (vx * vy).squareRoot()
    }
}

/// Short-time power spectra of 16-bit audio over the telephone band.
struct SpectrumAnalysis {
    let frameLength: Int
    let fftSize: Int
    let window: [Double]
    /// The FFT bins analysed: 150…3400 Hz.
    let bins: Range<Int>
    /// Bins either side that make up a bin's spectral envelope (±375 Hz).
    let envelopeHalfWidth: Int
    private let fft: RealFFT

    init(frameLength: Int, sampleRate: Int) {
        self.frameLength = frameLength
        var size = 1
        while size < frameLength { size *= 2 }
        fftSize = size
        window = (0..<frameLength).map { 0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(frameLength)) }
        let binHz = Double(sampleRate) / Double(size)
        bins = Int((150 / binHz).rounded(.up))..<(Int(3_400 / binHz) + 1)
        envelopeHalfWidth = max(1, Int((375 / binHz).rounded()))
        fft = RealFFT(size: size)
    }

    /// Each frame's harmonic structure: dB per bin, floored at `floor` and 40 dB below the
    /// frame's loudest bin, less the average over ±``envelopeHalfWidth`` bins.
    func features(_ frames: SpectrumFrames, floor: Double) -> [Double] {
        let floorDB = 10 * log10(max(floor, 1e-9))
        let n = frames.bins
        var out = [Double](repeating: 0, count: frames.count * n)
        var row = [Double](repeating: 0, count: n)
        var prefix = [Double](repeating: 0, count: n + 1)
        for f in 0..<frames.count {
            var peak = floorDB
            for b in 0..<n {
                row[b] = max(floorDB, 10 * log10(max(frames.power[f * n + b], 1e-9)))
                peak = max(peak, row[b])
            }
            for b in 0..<n {
                row[b] = max(row[b], peak - 40)
                prefix[b + 1] = prefix[b] + row[b]
            }
            for b in 0..<n {
                let lo = max(0, b - envelopeHalfWidth), hi = min(n - 1, b + envelopeHalfWidth)
                out[f * n + b] = row[b] - (prefix[hi + 1] - prefix[lo]) / Double(hi - lo + 1)
            }
        }
        return out
    }

    /// Power per bin (frame-major) and energy per frame, `count` frames (or as many as fit) `hop` apart.
    func frames(of samples: [Int16], hop: Int, count: Int? = nil) -> SpectrumFrames {
        let available = samples.count >= frameLength ? (samples.count - frameLength) / hop + 1 : 0
        let n = min(count ?? available, available)
        let width = bins.count
        var power = [Double](repeating: 0, count: n * width)
        var energy = [Double](repeating: 0, count: n)
        var re = [Double](repeating: 0, count: fftSize)
        var im = [Double](repeating: 0, count: fftSize)
        samples.withUnsafeBufferPointer { x in
            window.withUnsafeBufferPointer { w in
                for f in 0..<n {
                    let at = f * hop
                    var e = 0.0
                    re.withUnsafeMutableBufferPointer { r in
                        var i = 0
                        while i < frameLength {
                            let v = Double(x[at + i])
                            e += v * v
                            r[i] = v * w[i]
                            i += 1
                        }
                        while i < fftSize {
                            r[i] = 0
                            i += 1
                        }
                    }
                    im.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                    fft.transform(&re, &im)
                    var k = 0
                    for bin in bins {
                        power[f * width + k] = re[bin] * re[bin] + im[bin] * im[bin]
                        k += 1
                    }
                    energy[f] = e
                }
            }
        }
        return SpectrumFrames(count: n, bins: width, power: power, energy: energy)
    }
}

/// Power per bin and energy per frame of a run of frames.
struct SpectrumFrames {
    let count: Int
    let bins: Int
    let power: [Double]
    let energy: [Double]
}

/// An in-place radix-2 FFT (power-of-two sizes) for the analysis above.
struct RealFFT {
    let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]

    init(size: Int) {
        self.size = size
        cosines = (0..<(size / 2)).map { cos(-2 * .pi * Double($0) / Double(size)) }
        sines = (0..<(size / 2)).map { sin(-2 * .pi * Double($0) / Double(size)) }
        var bits = 0
        while 1 << bits < size { bits += 1 }
        reversed = (0..<size).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    func transform(_ re: inout [Double], _ im: inout [Double]) {
        let n = size
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { m in
                cosines.withUnsafeBufferPointer { c in
                    sines.withUnsafeBufferPointer { s in
                        reversed.withUnsafeBufferPointer { rev in
                            for i in 0..<n where rev[i] > i {
                                r.swapAt(i, rev[i])
                                m.swapAt(i, rev[i])
                            }
                            var length = 2
                            while length <= n {
                                let half = length / 2
                                let step = n / length
                                var start = 0
                                while start < n {
                                    var k = 0
                                    while k < half {
                                        let wr = c[k * step], wi = s[k * step]
                                        let a = start + k, b = a + half
                                        let tr = r[b] * wr - m[b] * wi
                                        let ti = r[b] * wi + m[b] * wr
                                        r[b] = r[a] - tr
                                        m[b] = m[a] - ti
                                        r[a] += tr
                                        m[a] += ti
                                        k += 1
                                    }
                                    start += length
                                }
                                length *= 2
                            }
                        }
                    }
                }
            }
        }
    }
}
