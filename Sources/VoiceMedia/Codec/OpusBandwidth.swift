import COpus

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

    /// The `OPUS_BANDWIDTH_*` constant.
    public var rawOpusValue: Int32 {
        switch self {
        case .narrowband: OPUS_BANDWIDTH_NARROWBAND
        case .mediumband: OPUS_BANDWIDTH_MEDIUMBAND
        case .wideband: OPUS_BANDWIDTH_WIDEBAND
        case .superWideband: OPUS_BANDWIDTH_SUPERWIDEBAND
        case .fullband: OPUS_BANDWIDTH_FULLBAND
        }
    }

    /// Maps an `OPUS_BANDWIDTH_*` constant back, or nil for an unknown value.
    public init?(rawOpusValue: Int32) {
        guard let match = Self.allCases.first(where: { $0.rawOpusValue == rawOpusValue }) else { return nil }
        self = match
    }
}
