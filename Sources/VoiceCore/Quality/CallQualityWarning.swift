/// A call-quality warning, as raised by `CallQualityWarningDetector` and reported through
/// `CallDelegate.call(_:didReceiveQualityWarnings:previousWarnings:)`.
///
/// The raw value is the event name the warning carries in Insights (seed table: the
/// `network-quality-warning-*` and `audio-level-warning-*` groups).
public enum CallQualityWarning: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Three of the last five round-trip-time samples exceed 400 ms.
    case highRtt = "high-rtt"
    /// Three of the last five jitter samples exceed 30 ms.
    case highJitter = "high-jitter"
    /// The mean fraction of packets lost over the last seven samples exceeds 3 %.
    case highPacketsLostFraction = "high-packets-lost-fraction"
    /// Three of the last five MOS samples are below 3.5.
    case lowMos = "low-mos"
    /// The standard deviation of the last ten input-level samples is at most 1 % of 32767 while unmuted.
    case constantAudioInputLevel = "constant-audio-input-level"

    /// The Insights event name of this warning (`high-rtt`, `constant-audio-input-level`, …).
    public var insightsName: String { rawValue }

    /// Whether this warning belongs to the audio-level Insights groups rather than the network-quality ones.
    public var isAudioLevelWarning: Bool { self == .constantAudioInputLevel }

    /// The Insights event name.
    public var description: String { rawValue }
}
