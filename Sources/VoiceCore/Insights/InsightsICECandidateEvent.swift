/// Event names of the `ice-candidate` group. Without ICE, the only candidates are host
/// addresses: `InsightsMediaConnectionTracker` reports our bound RTP address as an
/// `ice-candidate` when the stream starts, and the local/remote address pair as
/// `selected-ice-candidate-pair` when media first arrives.
package enum InsightsICECandidateEvent: String, Hashable, Sendable, CaseIterable {
    /// A local candidate: our bound RTP address.
    case iceCandidate = "ice-candidate"
    /// The address pair media flows between.
    case selectedICECandidatePair = "selected-ice-candidate-pair"
}
