/// The group of an ``InsightsEvent``: the first column of the seed's Insights tables.
package enum InsightsEventGroup: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Call lifecycle: ``InsightsConnectionEvent``.
    case connection
    /// Media transport lifecycle in peer-connection terms: ``InsightsPeerConnectionState``.
    case pcConnectionState = "pc-connection-state"
    /// Media addresses in ICE-candidate terms: ``InsightsICECandidateEvent``.
    case iceCandidate = "ice-candidate"
    /// Media transport lifecycle in ICE terms: ``InsightsICEConnectionState``.
    case iceConnectionState = "ice-connection-state"
    /// Local media address gathering in ICE terms: ``InsightsICEGatheringState``.
    case iceGatheringState = "ice-gathering-state"
    /// SDP offer/answer state: ``InsightsSignalingState``.
    case signalingState = "signaling-state"
    /// A network quality warning was raised; the name is a ``CallQualityWarning``'s.
    case networkQualityWarningRaised = "network-quality-warning-raised"
    /// A network quality warning was cleared; the name is a ``CallQualityWarning``'s.
    case networkQualityWarningCleared = "network-quality-warning-cleared"
    /// An audio level warning was raised (`constant-audio-input-level`).
    case audioLevelWarningRaised = "audio-level-warning-raised"
    /// An audio level warning was cleared (`constant-audio-input-level`).
    case audioLevelWarningCleared = "audio-level-warning-cleared"
    /// Call feedback: ``InsightsFeedbackEvent``.
    case feedback
    /// Negotiated settings: ``InsightsSettingsEvent``.
    case settings
    /// The call's audio device was interrupted and came back: ``InsightsAudioInterruptionEvent``.
    case audioInterruption = "audio-interruption"
    /// One-second stats samples in batches (`metrics-sample`): ``InsightsMetricsBatch``.
    case qualityMetricsSamples = "quality-metrics-samples"

    /// The event names the seed's tables define for this group.
    package var eventNames: [String] {
        switch self {
        case .connection: return InsightsConnectionEvent.allCases.map(\.rawValue)
        case .pcConnectionState: return InsightsPeerConnectionState.allCases.map(\.rawValue)
        case .iceCandidate: return InsightsICECandidateEvent.allCases.map(\.rawValue)
        case .iceConnectionState: return InsightsICEConnectionState.allCases.map(\.rawValue)
        case .iceGatheringState: return InsightsICEGatheringState.allCases.map(\.rawValue)
        case .signalingState: return InsightsSignalingState.allCases.map(\.rawValue)
        case .networkQualityWarningRaised, .networkQualityWarningCleared:
            return CallQualityWarning.allCases.filter { !$0.isAudioLevelWarning }.map(\.rawValue)
        case .audioLevelWarningRaised, .audioLevelWarningCleared:
            return CallQualityWarning.allCases.filter(\.isAudioLevelWarning).map(\.rawValue)
        case .feedback: return InsightsFeedbackEvent.allCases.map(\.rawValue)
        case .settings: return InsightsSettingsEvent.allCases.map(\.rawValue)
        case .audioInterruption: return InsightsAudioInterruptionEvent.allCases.map(\.rawValue)
        case .qualityMetricsSamples: return ["metrics-sample"]
        }
    }

    /// The wire name (`pc-connection-state`, …).
    package var description: String { rawValue }
}
