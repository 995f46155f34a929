import COpus

/// The libopus coding mode an encoder is tuned for (`OPUS_APPLICATION_*`).
public enum OpusApplication: Hashable, Sendable, CaseIterable {
    /// Interactive speech: favours intelligibility, enables the speech-oriented tools.
    case voip
    /// Music or mixed content where fidelity to the input matters.
    case audio
    /// Lowest algorithmic delay (CELT only, no SILK): no speech optimisations.
    case restrictedLowDelay

    /// The `OPUS_APPLICATION_*` constant.
    public var rawOpusValue: Int32 {
        switch self {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
    }

    /// Maps an `OPUS_APPLICATION_*` constant back, or nil for an unknown value.
    public init?(rawOpusValue: Int32) {
        switch rawOpusValue {
        case OPUS_APPLICATION_VOIP: self = .voip
        case OPUS_APPLICATION_AUDIO: self = .audio
        case OPUS_APPLICATION_RESTRICTED_LOWDELAY: self = .restrictedLowDelay
        default: return nil
        }
    }
}
