/// Why a call ended, as recorded by ``CallStateMachine/endCause``.
package enum CallStateEndCause: Sendable, Hashable {
    /// `disconnect()` was called locally.
    case localDisconnect
    /// The peer hung up a connected call.
    case remoteHangUp
    /// The call failed to connect, or ended because of an error.
    case error(CallStateError)
}
