import COpus
import VoiceSupport
import VoiceMediaTypes

extension OpusSignal {
    /// The `OPUS_AUTO` / `OPUS_SIGNAL_*` constant.
    package var rawOpusValue: Int32 {
        switch self {
        case .auto: OPUS_AUTO
        case .voice: OPUS_SIGNAL_VOICE
        case .music: OPUS_SIGNAL_MUSIC
        }
    }

    /// Maps an `OPUS_SIGNAL_*` constant back, or nil for an unknown value.
    package init?(rawOpusValue: Int32) {
        switch rawOpusValue {
        case OPUS_AUTO: self = .auto
        case OPUS_SIGNAL_VOICE: self = .voice
        case OPUS_SIGNAL_MUSIC: self = .music
        default: return nil
        }
    }
}
