/// Event names of the `connection` group (seed 000's connection table, seed 002's accept/reject tables).
package enum InsightsConnectionEvent: String, Hashable, Sendable, CaseIterable {
    /// The call was muted.
    case muted
    /// The call was unmuted.
    case unmuted
    /// The remote side answered our offer (a 2xx with SDP to our INVITE).
    case acceptedByRemote = "accepted-by-remote"
    /// The call was redirected (a 3xx): its INVITE went on to another target; the payload
    /// carries the `status` (absent when an earlier redirect's next target was tried after one
    /// failed) and the new `target`.
    case redirected
    /// The call entered the ringing state.
    case ringing
    /// The call entered the connected state.
    case connected
    /// `disconnect()` was called.
    case disconnectCalled = "disconnect-called"
    /// The call ended because of `disconnect()`.
    case disconnectedByLocal = "disconnected-by-local"
    /// The call was ended by the remote side.
    case disconnectedByRemote = "disconnected-by-remote"
    /// The call was put on hold.
    case hold
    /// The call was taken off hold.
    case unhold
    /// The call failed or ended with an error; the payload carries the code and message.
    case error
    /// The call is recovering from a signaling or media interruption.
    case reconnecting
    /// The call recovered from a signaling or media interruption.
    case reconnected
    /// An incoming call invite was accepted.
    case acceptedByLocal = "accepted-by-local"
    /// An incoming call invite was rejected.
    case rejectedByLocal = "rejected-by-local"
}
