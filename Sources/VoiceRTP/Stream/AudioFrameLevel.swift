import Foundation

/// A frame's loudness as RFC 6464 carries it: −dBov of its RMS, 0 (full scale) to 127 (silence).
package enum AudioFrameLevel {
    /// The RFC 6464 level of `samples`.
    package static func dBov(_ samples: UnsafeBufferPointer<Int16>) -> UInt8 {
        guard !samples.isEmpty else { return 127 }
        var energy: Int64 = 0
        for sample in samples { energy += Int64(sample) * Int64(sample) }
        guard energy > 0 else { return 127 }
        let meanSquare = Double(energy) / Double(samples.count)
        let level = -10 * log10(meanSquare / (32_768.0 * 32_768.0))
        return UInt8(min(127, max(0, level.rounded())))
    }

    /// Levels at or louder than this (−dBov) set the extension's voice-activity bit.
    package static let voiceActivityLevel: UInt8 = 50
}
