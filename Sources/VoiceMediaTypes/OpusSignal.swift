/// What kind of audio the encoder should expect (`OPUS_SET_SIGNAL`).
public enum OpusSignal: Hashable, Sendable, CaseIterable {
    /// Let the encoder classify the input.
    case auto
    /// Bias mode decisions towards speech (SILK).
    case voice
    /// Bias mode decisions towards music (CELT).
    case music
}
