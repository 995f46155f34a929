/// The libopus coding mode an encoder is tuned for (`OPUS_APPLICATION_*`).
public enum OpusApplication: Hashable, Sendable, CaseIterable {
    /// Interactive speech: favours intelligibility, enables the speech-oriented tools.
    case voip
    /// Music or mixed content where fidelity to the input matters.
    case audio
    /// Lowest algorithmic delay (CELT only, no SILK): no speech optimisations.
    case restrictedLowDelay
}
