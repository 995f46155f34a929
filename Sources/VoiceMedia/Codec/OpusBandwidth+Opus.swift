import COpus
import VoiceSupport
import VoiceMediaTypes

extension OpusBandwidth {
    /// The `OPUS_BANDWIDTH_*` constant.
    package var rawOpusValue: Int32 {
        switch self {
        case .narrowband: OPUS_BANDWIDTH_NARROWBAND
        case .mediumband: OPUS_BANDWIDTH_MEDIUMBAND
        case .wideband: OPUS_BANDWIDTH_WIDEBAND
        case .superWideband: OPUS_BANDWIDTH_SUPERWIDEBAND
        case .fullband: OPUS_BANDWIDTH_FULLBAND
        }
    }

    /// Maps an `OPUS_BANDWIDTH_*` constant back, or nil for an unknown value.
    package init?(rawOpusValue: Int32) {
        guard let match = Self.allCases.first(where: { $0.rawOpusValue == rawOpusValue }) else { return nil }
        self = match
    }
}
