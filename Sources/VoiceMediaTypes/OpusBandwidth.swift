/// An audio bandwidth, as used for `OPUS_SET_MAX_BANDWIDTH`.
public enum OpusBandwidth: Hashable, Sendable, CaseIterable {
    /// 4 kHz passband.
    case narrowband
    /// 6 kHz passband.
    case mediumband
    /// 8 kHz passband.
    case wideband
    /// 12 kHz passband.
    case superWideband
    /// 20 kHz passband.
    case fullband
}
