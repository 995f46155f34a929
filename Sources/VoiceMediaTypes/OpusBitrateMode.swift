/// How an Opus encoder spends its bitrate budget.
public enum OpusBitrateMode: Hashable, Sendable, CaseIterable {
    /// Constant bitrate: every packet of a given duration has the same size.
    case cbr
    /// Unconstrained variable bitrate (the libopus default).
    case vbr
    /// Variable bitrate whose short-term average never exceeds the target (one frame of buffering).
    case constrainedVBR
}
