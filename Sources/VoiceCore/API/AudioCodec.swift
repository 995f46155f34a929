import VoiceMedia
import VoiceMediaTypes

/// An audio codec a call may use, in the caller's order of preference.
public enum AudioCodec: Hashable, Sendable, CustomStringConvertible {
    /// Opus at 48 kHz with in-band FEC; `maxAverageBitrate` in bits per second (6 000–510 000) is
    /// the most the call sends and asks the peer to send (default 80 000). On a clean link a
    /// call sends 64 kbps, or this maximum if it is lower; while the peer reports loss it rises
    /// towards the maximum to make room for FEC.
    case opus(maxAverageBitrate: Int = 80_000)
    /// G.722 at 64 kbit/s: 16 kHz wideband audio, what desk phones, DECT bases and many PBXs
    /// offer when they have no Opus.
    case g722
    /// G.711 μ-law.
    case pcmu
    /// G.711 A-law.
    case pcma

    /// The default preference: Opus (64 kbps, up to 80 kbps with FEC), then G.722 (wideband),
    /// then PCMU, then PCMA.
    public static let defaultPreference: [AudioCodec] = [.opus(), .g722, .pcmu, .pcma]

    /// The media engine's codec.
    package var mediaCodec: MediaCodec {
        switch self {
        case .opus(let bitrate):
            var settings = OpusSettings.voice
            settings.maxAverageBitrate = min(510_000, max(6_000, bitrate))
            settings.bitrate = min(settings.bitrate, settings.maxAverageBitrate)
            return .opus(settings)
        case .g722: return .g722
        case .pcmu: return .pcmu
        case .pcma: return .pcma
        }
    }

    /// The app's name of a codec the media engine runs: Opus with its maximum average bitrate.
    package init(_ codec: MediaCodec) {
        switch codec {
        case .opus(let settings): self = .opus(maxAverageBitrate: settings.maxAverageBitrate)
        case .g722: self = .g722
        case .pcmu: self = .pcmu
        case .pcma: self = .pcma
        }
    }

    public var description: String {
        switch self {
        case .opus(let bitrate): return "opus/\(bitrate)"
        case .g722: return "G722"
        case .pcmu: return "PCMU"
        case .pcma: return "PCMA"
        }
    }
}
