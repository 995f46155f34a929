import Foundation

/// Test audio: deterministic signals that a codec carries and a listener would recognise.
public enum TestSignals {
    /// A speech-like signal at 48 kHz: a voiced harmonic source whose pitch glides (100–220 Hz)
    /// through moving formant-like emphasis, in syllable-rate bursts (~4 Hz) with short pauses.
    public static func speechLike(seconds: Double, sampleRate: Int = 48_000, amplitude: Double = 14_000, seed: Int = 1) -> [Int16] {
        let n = Int(seconds * Double(sampleRate))
        var out = [Int16](repeating: 0, count: n)
        var phase = 0.0
        let sr = Double(sampleRate)
        for i in 0..<n {
            let t = Double(i) / sr
            let f0 = 150 + 60 * sin(2 * .pi * 0.7 * t + Double(seed)) + 20 * sin(2 * .pi * 2.3 * t)
            phase += 2 * .pi * f0 / sr
            if phase > 2 * .pi { phase -= 2 * .pi }
            let f1 = 500 + 250 * sin(2 * .pi * 1.1 * t)
            let f2 = 1_500 + 600 * sin(2 * .pi * 0.9 * t + 1)
            var s = 0.0
            var k = 1.0
            while k * f0 < 4_000 {
                let fk = k * f0
                let g = 1 / (1 + pow((fk - f1) / 150, 2)) + 0.6 / (1 + pow((fk - f2) / 250, 2)) + 0.05
                s += g * sin(k * phase)
                k += 1
            }
            let syllable = max(0, sin(2 * .pi * 3.7 * t))
            let envelope = pow(syllable, 0.6)
            out[i] = Int16(clamping: Int(amplitude * envelope * s / 4.5))
        }
        return out
    }

    /// A sum of sine tones, each with its own level.
    public static func multiTone(_ tones: [(frequency: Double, amplitude: Double)], seconds: Double, sampleRate: Int = 48_000) -> [Int16] {
        let n = Int(seconds * Double(sampleRate))
        return (0..<n).map { i in
            let t = Double(i) / Double(sampleRate)
            let v = tones.reduce(0.0) { $0 + $1.amplitude * sin(2 * .pi * $1.frequency * t) }
            return Int16(clamping: Int(v))
        }
    }
}
