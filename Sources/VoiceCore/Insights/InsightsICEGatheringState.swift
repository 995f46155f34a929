/// Event names of the `ice-gathering-state` group. We gather exactly one candidate, the bound
/// local RTP address, so gathering completes as soon as the stream starts:
/// `InsightsMediaConnectionTracker` emits `new` with the media's creation and `complete` when
/// the stream starts. `gathering` never fires (there is no asynchronous gathering phase).
package enum InsightsICEGatheringState: String, Hashable, Sendable, CaseIterable {
    /// The media exists and has no local address yet.
    case new
    /// Never fires: the local address is bound synchronously.
    case gathering
    /// The local RTP address is known.
    case complete
}
