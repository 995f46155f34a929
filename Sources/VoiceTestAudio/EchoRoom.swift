import Foundation

/// A simulated room for testing echo cancellation: what a microphone picks up when a speaker
/// plays the far party's voice in it, beside a near-end talker and background noise.
///
/// The room's impulse response is a direct path ``delay`` late with amplitude ``echoGain``,
/// followed by an exponentially decaying Gaussian noise tail whose energy falls by 60 dB in
/// ``reverberationTime`` (RT60) and whose total energy is ``reverberantRatio`` times the direct
/// path's (1: as much reverberant energy as direct, a small office). The model is the statistical
/// one (Schroeder's: late reverberation as exponentially decaying noise), not an image-source
/// model. Everything is deterministic for a given ``seed``.
public struct EchoRoom: Hashable, Sendable {
    /// Sample rate of every signal, Hz.
    public var sampleRate: Int
    /// Loudspeaker-to-microphone delay of the direct path, seconds (30–120 ms in the tests).
    public var delay: Double
    /// Amplitude of the direct path (speaker-to-microphone coupling).
    public var echoGain: Double
    /// RT60 of the tail, seconds.
    public var reverberationTime: Double
    /// Energy of the tail over the direct path's.
    public var reverberantRatio: Double
    /// Seed of the tail's noise.
    public var seed: UInt64

    /// Creates a room; the default is a 48 kHz office: 60 ms direct path at −6 dB, RT60 300 ms.
    public init(
        sampleRate: Int = 48_000, delay: Double = 0.06, echoGain: Double = 0.5, reverberationTime: Double = 0.3,
        reverberantRatio: Double = 1, seed: UInt64 = 1
    ) {
        self.sampleRate = sampleRate
        self.delay = delay
        self.echoGain = echoGain
        self.reverberationTime = reverberationTime
        self.reverberantRatio = reverberantRatio
        self.seed = seed
    }

    /// The impulse response, cut where the tail has decayed by 60 dB.
    public func impulseResponse() -> [Double] {
        let rate = Double(sampleRate)
        let direct = Int((delay * rate).rounded())
        let tailLength = max(1, Int(reverberationTime * rate))
        var response = [Double](repeating: 0, count: direct + 1 + tailLength)
        response[direct] = echoGain
        // Amplitude envelope exp(-t·ln(1000)/RT60): −60 dB at RT60.
        let decay = log(1000.0) / (reverberationTime * rate)
        var random = SplitMix64(seed: seed)
        var tail = [Double](repeating: 0, count: tailLength)
        var energy = 0.0
        for i in 0..<tailLength {
            tail[i] = Self.gaussian(&random) * exp(-decay * Double(i + 1))
            energy += tail[i] * tail[i]
        }
        let scale = energy > 0 ? echoGain * (reverberantRatio / energy).squareRoot() : 0
        for i in 0..<tailLength { response[direct + 1 + i] = tail[i] * scale }
        return response
    }

    /// A sparse version of the room for a device that echoes in real time: the direct path and
    /// `reflections` discrete reflections at random times within the tail, with the tail's
    /// decaying envelope and its total energy (a few taps cost nothing per sample, where the dense
    /// response costs tens of thousands). Delays in samples.
    public func sparseTaps(reflections: Int = 16) -> [(delay: Int, gain: Double)] {
        let rate = Double(sampleRate)
        let direct = Int((delay * rate).rounded())
        let decay = log(1000.0) / (reverberationTime * rate)
        var random = SplitMix64(seed: seed)
        var taps: [(delay: Int, gain: Double)] = [(direct, echoGain)]
        var energy = 0.0
        for _ in 0..<reflections {
            let offset = 1 + Int(random.nextUnit() * reverberationTime * rate / 2)
            let gain = (random.nextUnit() < 0.5 ? -1.0 : 1.0) * exp(-decay * Double(offset))
            taps.append((direct + offset, gain))
            energy += gain * gain
        }
        let scale = energy > 0 ? echoGain * (reverberantRatio / energy).squareRoot() : 0
        for i in 1..<taps.count { taps[i].gain *= scale }
        return taps
    }

    /// What the microphone picks up of `played` (the speaker's signal), as many samples.
    public func echo(of played: [Int16]) -> [Double] {
        FFTConvolution.convolve(played.map(Double.init), with: impulseResponse())
    }

    /// The echo of `played` when the direct path's delay grows by `jump` seconds at `at` seconds
    /// (the speaker or the device moved): the room before it up to `at`, the moved room after,
    /// each applied to the whole signal so both tails are complete.
    public func echo(of played: [Int16], delayJump jump: Double, at: Double) -> [Double] {
        var moved = self
        moved.delay += jump
        let before = echo(of: played), after = moved.echo(of: played)
        let cut = min(played.count, Int(at * Double(sampleRate)))
        return Array(before[0..<cut] + after[cut...])
    }

    /// One standard normal value (Box–Muller).
    static func gaussian(_ random: inout SplitMix64) -> Double {
        let u = max(random.nextUnit(), .leastNonzeroMagnitude)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * random.nextUnit())
    }
}

/// Building and measuring microphone signals for voice processing tests.
public enum RoomSignals {
    /// White Gaussian noise with RMS `level` (dBFS, full scale 32768).
    public static func whiteNoise(count: Int, level: Double, seed: UInt64 = 7) -> [Double] {
        var random = SplitMix64(seed: seed)
        let rms = 32768 * pow(10, level / 20)
        return (0..<count).map { _ in EchoRoom.gaussian(&random) * rms }
    }

    /// Babble: `talkers` overlapping voices made from `voices` (each started at a different point
    /// and some reversed, so no word is intelligible), scaled to RMS `level` dBFS.
    public static func babble(count: Int, voices: [[Int16]], talkers: Int = 6, level: Double) -> [Double] {
        var sum = [Double](repeating: 0, count: count)
        guard !voices.isEmpty else { return sum }
        for talker in 0..<talkers {
            let voice = voices[talker % voices.count]
            guard !voice.isEmpty else { continue }
            let offset = (talker * 7_919 * 13) % voice.count
            let reversed = talker % 2 == 1
            for i in 0..<count {
                let k = (offset + i) % voice.count
                sum[i] += Double(voice[reversed ? voice.count - 1 - k : k])
            }
        }
        return scaled(sum, toLevel: level)
    }

    /// `signal` scaled so its RMS is `level` dBFS.
    public static func scaled(_ signal: [Double], toLevel level: Double) -> [Double] {
        let power = signal.reduce(0) { $0 + $1 * $1 } / Double(max(1, signal.count))
        guard power > 0 else { return signal }
        let gain = 32768 * pow(10, level / 20) / power.squareRoot()
        return signal.map { $0 * gain }
    }

    /// `signal` scaled so its active speech level (``activeLevel(_:sampleRate:)``) is `level` dBFS.
    public static func speech(_ signal: [Int16], atActiveLevel level: Double, sampleRate: Int = 48_000) -> [Double] {
        let current = activeLevel(signal.map(Double.init), sampleRate: sampleRate)
        let gain = pow(10, (level - current) / 20)
        return signal.map { Double($0) * gain }
    }

    /// The sum of the signals, sample by sample, rounded and clipped to 16 bits (as long as the first).
    public static func mix(_ signals: [Double]...) -> [Int16] {
        guard let first = signals.first else { return [] }
        return (0..<first.count).map { i in
            Int16(clamping: Int(signals.reduce(0) { $0 + (i < $1.count ? $1[i] : 0) }.rounded()))
        }
    }

    /// RMS level in dBFS of `signal[range]` (−120 for silence).
    public static func level(_ signal: [Double], _ range: Range<Int>? = nil) -> Double {
        let range = range ?? signal.indices
        guard !range.isEmpty else { return -120 }
        var power = 0.0
        for i in range { power += signal[i] * signal[i] }
        power /= Double(range.count)
        return power > 0 ? max(-120, 10 * log10(power / (32768.0 * 32768.0))) : -120
    }

    /// Indices of the 20 ms frames of `signal` that hold speech: within 30 dB of the loudest frame
    /// and above −70 dBFS (a simplified ITU-T P.56 activity decision).
    public static func activeFrames(_ signal: [Double], sampleRate: Int = 48_000) -> [Range<Int>] {
        let frame = sampleRate / 50
        let frames = stride(from: 0, to: signal.count - frame + 1, by: frame).map { $0..<($0 + frame) }
        let levels = frames.map { level(signal, $0) }
        guard let loudest = levels.max() else { return [] }
        return zip(frames, levels).filter { $0.1 > max(loudest - 30, -70) }.map(\.0)
    }

    /// Active speech level in dBFS: the RMS over ``activeFrames(_:sampleRate:)``.
    public static func activeLevel(_ signal: [Double], sampleRate: Int = 48_000) -> Double {
        powerLevel(signal, activeFrames(signal, sampleRate: sampleRate))
    }

    /// RMS level in dBFS over several ranges of `signal`.
    public static func powerLevel(_ signal: [Double], _ ranges: [Range<Int>]) -> Double {
        var power = 0.0, count = 0
        for range in ranges {
            for i in range where i < signal.count { power += signal[i] * signal[i] }
            count += range.count
        }
        guard count > 0, power > 0 else { return -120 }
        return max(-120, 10 * log10(power / Double(count) / (32768.0 * 32768.0)))
    }

    /// Echo return loss enhancement in dB: the echo's level in the microphone over what is left
    /// of it in the output, over the 20 ms frames from `start` (a sample index) on where the echo
    /// is above −60 dBFS (so silence in the far party's speech does not count).
    public static func echoReturnLossEnhancement(microphone: [Double], output: [Int16], from start: Int, to end: Int? = nil, sampleRate: Int = 48_000) -> Double {
        let frame = sampleRate / 50
        let end = min(end ?? microphone.count, microphone.count, output.count)
        let out = output.map(Double.init)
        var ranges: [Range<Int>] = []
        var i = max(0, start)
        while i + frame <= end {
            if level(microphone, i..<(i + frame)) > -60 { ranges.append(i..<(i + frame)) }
            i += frame
        }
        return powerLevel(microphone, ranges) - powerLevel(out, ranges)
    }
}
