/// Event names of the `pc-connection-state` group, mapped onto the lifecycle of our RTP media
/// stream (there is no WebRTC peer connection; see `InsightsMediaConnectionTracker`).
///
/// All six fire: `new` when the call's media is created, `connecting` when the stream starts
/// sending to the negotiated address, `connected` when media arrives from the peer, `disconnected`
/// when the peer's media goes silent (media reconnecting), `failed` when media never arrives or
/// does not resume, `closed` when the stream stops.
package enum InsightsPeerConnectionState: String, Hashable, Sendable, CaseIterable {
    /// The media stream exists but has not started.
    case new
    /// The stream sends to the negotiated address; nothing received yet.
    case connecting
    /// Media arrives from the peer.
    case connected
    /// The peer's media went silent.
    case disconnected
    /// Media could not be established or did not recover.
    case failed
    /// The stream stopped.
    case closed
}
