/// A delegate callback a ``CallStateMachine`` asks the call to deliver, mirroring `CallDelegate`.
package enum CallStateCallback: Sendable, Hashable {
    /// `callDidStartRinging(_:)`; caller side only.
    case didStartRinging
    /// `callDidConnect(_:)`.
    case didConnect
    /// `call(_:didFailToConnectWithError:)`: the call ended before it was connected.
    case didFailToConnect(CallStateError)
    /// `call(_:didDisconnectWithError:)`: `nil` for a normal end, an error otherwise.
    case didDisconnect(CallStateError?)
    /// `call(_:isReconnectingWithError:)`: 53405 for media, 53001 for signaling.
    case isReconnecting(CallStateError)
    /// `callDidReconnect(_:)`: once per recovered cause.
    case didReconnect
}
