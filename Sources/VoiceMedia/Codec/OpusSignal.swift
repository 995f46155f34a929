import COpus

/// What kind of audio the encoder should expect (`OPUS_SET_SIGNAL`).
public enum OpusSignal: Hashable, Sendable, CaseIterable {
    /// Let the encoder classify the input.
    case auto
    /// Bias mode decisions towards speech (SILK).
    case voice
    /// Bias mode decisions towards music (CELT).
    case music

    /// The `OPUS_AUTO` / `OPUS_SIGNAL_*` constant.
    public var rawOpusValue: Int32 {
        switch self {
        case .auto: OPUS_AUTO
        case .voice: OPUS_SIGNAL_VOICE
        case .music: OPUS_SIGNAL_MUSIC
        }
    }

    /// Maps an `OPUS_SIGNAL_*` constant back, or nil for an unknown value.
    public init?(rawOpusValue: Int32) {
        switch rawOpusValue {
        case OPUS_AUTO: self = .auto
        case OPUS_SIGNAL_VOICE: self = .voice
        case OPUS_SIGNAL_MUSIC: self = .music
        default: return nil
        }
    }
}
