import VoiceMedia

/// An audio codec a call may use, in the caller's order of preference.
public enum AudioCodec: Hashable, Sendable, CustomStringConvertible {
    /// Opus at 48 kHz with in-band FEC; `maxAverageBitrate` in bits per second (6 000–510 000).
    case opus(maxAverageBitrate: Int = 32_000)
    /// G.711 μ-law.
    case pcmu
    /// G.711 A-law.
    case pcma

    /// The default preference: Opus at 32 kbps, then PCMU, then PCMA.
    public static let defaultPreference: [AudioCodec] = [.opus(), .pcmu, .pcma]

    /// The media engine's codec.
    public var mediaCodec: MediaCodec {
        switch self {
        case .opus(let bitrate):
            var settings = OpusSettings.voice
            settings.bitrate = min(510_000, max(6_000, bitrate))
            return .opus(settings)
        case .pcmu: return .pcmu
        case .pcma: return .pcma
        }
    }

    public var description: String {
        switch self {
        case .opus(let bitrate): return "opus/\(bitrate)"
        case .pcmu: return "PCMU"
        case .pcma: return "PCMA"
        }
    }
}
