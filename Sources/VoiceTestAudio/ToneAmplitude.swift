import Foundation

/// How loud one frequency is in a recording: the Goertzel algorithm, exact over whole periods.
public enum ToneAmplitude {
    /// The amplitude (peak, in sample units) of the `frequency` component of `samples`.
    public static func of(_ frequency: Double, in samples: some Collection<Int16>, sampleRate: Int = 48_000) -> Double {
        guard !samples.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * .pi * frequency / Double(sampleRate))
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        return 2 * max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2).squareRoot() / Double(samples.count)
    }
}
