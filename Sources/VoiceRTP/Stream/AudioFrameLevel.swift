import Foundation

/// A frame's loudness: its peak sample, its RMS level in dBFS, and that level as RFC 6464
/// carries it (−dBov, 0 full scale to 127 silence). One computation for the stream's figures,
/// the levels it sends, and a conference mixer's talk detection.
package enum AudioFrameLevel {
    /// The level reported for silence.
    package static let floorDBFS = -127.0

    /// Peak absolute sample value, 0…32767.
    package static func peak(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        var m: Int32 = 0
        for s in samples {
            let v = Int32(s)
            m = max(m, v < 0 ? -v : v)
        }
        return Int(min(m, 32_767))
    }

    /// RMS level of `samples` in dBFS (full-scale sine: −3), ``floorDBFS`` for silence.
    package static func dBFS(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return floorDBFS }
        var energy: Int64 = 0
        for sample in samples { energy += Int64(sample) * Int64(sample) }
        guard energy > 0 else { return floorDBFS }
        let meanSquare = Double(energy) / Double(samples.count)
        return max(floorDBFS, 10 * log10(meanSquare / (32_768.0 * 32_768.0)))
    }

    /// The RFC 6464 level of `samples`.
    package static func dBov(_ samples: UnsafeBufferPointer<Int16>) -> UInt8 {
        UInt8(min(127, max(0, (-dBFS(samples)).rounded())))
    }

    /// Levels at or louder than this (−dBov) set the extension's voice-activity bit.
    package static let voiceActivityLevel: UInt8 = 50
}
