import Foundation

/// Deterministic test signals and measurements shared by the codec tests.
enum CodecTestSignal {
    /// A sine tone.
    static func tone(_ frequency: Double, rate: Int, count: Int, amplitude: Double = 10_000) -> [Int16] {
        (0..<count).map { Int16(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
    }

    /// A sum of sine tones, each at `amplitude`.
    static func multiTone(_ frequencies: [Double], rate: Int, count: Int, amplitude: Double = 4_000) -> [Int16] {
        (0..<count).map { n in
            let t = Double(n) / Double(rate)
            let v = frequencies.reduce(0.0) { $0 + amplitude * sin(2 * .pi * $1 * t) }
            return Int16(max(-32_000, min(32_000, v)))
        }
    }

    /// A speech-like signal at 48 kHz: a glottal-pulse-like harmonic series whose pitch glides
    /// between 110 and 220 Hz, shaped by two moving formants and a 4 Hz syllable envelope.
    static func voiceLike(count: Int, rate: Int = 48_000) -> [Int16] {
        var out = [Int16](repeating: 0, count: count)
        var phase = 0.0
        for n in 0..<count {
            let t = Double(n) / Double(rate)
            let f0 = 165 + 55 * sin(2 * .pi * 1.3 * t)
            phase += 2 * .pi * f0 / Double(rate)
            let formant1 = 500 + 300 * sin(2 * .pi * 0.7 * t)
            let formant2 = 1_500 + 700 * sin(2 * .pi * 0.45 * t + 1)
            var v = 0.0
            for k in 1...20 {
                let f = f0 * Double(k)
                if f > 4_000 { break }
                let g1 = 1 / (1 + pow((f - formant1) / 150, 2))
                let g2 = 0.6 / (1 + pow((f - formant2) / 200, 2))
                v += (g1 + g2 + 0.02) * sin(Double(k) * phase)
            }
            let envelope = 0.55 + 0.45 * sin(2 * .pi * 4 * t)
            out[n] = Int16(max(-32_000, min(32_000, 9_000 * envelope * v)))
        }
        return out
    }

    /// Amplitude of the `frequency` component of `x` (Goertzel; exact for whole periods).
    static func amplitude(of frequency: Double, in x: ArraySlice<Int16>, rate: Int) -> Double {
        let w = 2 * .pi * frequency / Double(rate)
        let coefficient = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for sample in x {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return 2 * sqrt(max(power, 0)) / Double(x.count)
    }

    /// Root mean square of `x`.
    static func rms(_ x: ArraySlice<Int16>) -> Double {
        guard !x.isEmpty else { return 0 }
        return sqrt(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count))
    }

    /// Signal-to-noise ratio in dB of `y` against `reference`, sample by sample.
    static func snr(reference: ArraySlice<Int16>, _ y: ArraySlice<Int16>) -> Double {
        var signal = 0.0, noise = 0.0
        for (a, b) in zip(reference, y) {
            signal += Double(a) * Double(a)
            noise += (Double(a) - Double(b)) * (Double(a) - Double(b))
        }
        return 10 * log10(signal / max(noise, 1e-9))
    }

    /// Squared error energy between two runs of samples.
    static func errorEnergy(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Double {
        zip(a, b).reduce(0.0) { $0 + (Double($1.0) - Double($1.1)) * (Double($1.0) - Double($1.1)) }
    }

    /// Normalised cross-correlation of two equal-length runs.
    static func correlation(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            ab += Double(x) * Double(y)
            aa += Double(x) * Double(x)
            bb += Double(y) * Double(y)
        }
        return ab / max(sqrt(aa * bb), 1e-9)
    }
}
