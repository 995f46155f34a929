import Foundation
import VoiceMedia

/// The signal a preflight sends when the app gives no device: two tones with pauses between
/// them (a voice's rhythm, so the codec codes talk and pauses), repeated every 1.3 s (not a
/// whole second, so that a level read once a second is not the same each time).
enum PreflightSignal {
    /// 1.3 s at 48 kHz: 440 Hz for 300 ms, 350 ms of quiet, 660 Hz for 300 ms, 350 ms quiet.
    static let pattern: [Int16] = {
        var samples = [Int16](repeating: 0, count: 62_400)
        for (start, frequency) in [(0, 440.0), (31_200, 660.0)] {
            for n in 0..<14_400 {
                let fade = min(1, Double(min(n, 14_400 - n)) / 480)
                samples[start + n] = Int16(8_000 * fade * sin(2 * Double.pi * frequency * Double(n) / 48_000))
            }
        }
        return samples
    }()

    /// A device that sends the pattern, paced in real time.
    static func device() -> any AudioDevice { LoopingSignalDevice(signal: pattern) }
}
