/// Work a ``CallStateMachine`` asks its driver to do.
package enum CallStateAction: Sendable, Hashable {
    /// End the signaling session: CANCEL before an answer, BYE after it. Emitted only when the
    /// call ends by a local decision (disconnect, local failure, reconnection timeout); a call the
    /// peer or the network ended has no session left to end.
    case hangUpSignaling
    /// Stop the media stream and release its socket, audio device and threads.
    case releaseMedia
    /// Re-establish the signaling connection, then send a re-INVITE on the existing dialog; report
    /// the outcome with ``CallStateMachine/signalingConnectionRestored(now:)`` or
    /// ``CallStateMachine/signalingReconnectFailed(now:)``.
    case reInviteAfterSignalingReconnect
}
