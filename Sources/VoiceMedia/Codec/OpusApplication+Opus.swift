import COpus
import VoiceSupport
import VoiceMediaTypes

extension OpusApplication {
    /// The `OPUS_APPLICATION_*` constant.
    package var rawOpusValue: Int32 {
        switch self {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
    }

    /// Maps an `OPUS_APPLICATION_*` constant back, or nil for an unknown value.
    package init?(rawOpusValue: Int32) {
        switch rawOpusValue {
        case OPUS_APPLICATION_VOIP: self = .voip
        case OPUS_APPLICATION_AUDIO: self = .audio
        case OPUS_APPLICATION_RESTRICTED_LOWDELAY: self = .restrictedLowDelay
        default: return nil
        }
    }
}
