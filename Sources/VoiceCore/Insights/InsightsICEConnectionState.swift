/// Event names of the `ice-connection-state` group. Our media runs over plain RTP to the address
/// negotiated in SDP, without ICE; these names are mapped onto the media stream's lifecycle by
/// `InsightsMediaConnectionTracker`.
///
/// `new`, `checking`, `connected`, `disconnected`, `failed` and `closed` fire (as `new`,
/// `connecting`, `connected`, `disconnected`, `failed`, `closed` of ``InsightsPeerConnectionState``).
/// `completed` never fires: it means ICE finished checking every candidate pair, and we have no
/// connectivity checks.
package enum InsightsICEConnectionState: String, Hashable, Sendable, CaseIterable {
    /// The media stream exists but has not started.
    case new
    /// The stream sends to the negotiated address and waits for the peer's media.
    case checking
    /// Media arrives from the peer.
    case connected
    /// Never fires: there are no ICE connectivity checks to complete.
    case completed
    /// The stream stopped.
    case closed
    /// The peer's media went silent.
    case disconnected
    /// Media could not be established or did not recover.
    case failed
}
