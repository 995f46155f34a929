/// An Insights event of the `connection` group that a ``CallStateMachine`` emits.
///
/// ``name`` is the event name of seed 000's connection table; ``error`` and ``reconnectCause``
/// carry the payload the publisher needs.
package enum CallStateInsightsEvent: Sendable, Hashable {
    /// The call moved to ``CallState/ringing``.
    case ringing
    /// The peer answered the caller's offer (caller side).
    case acceptedByRemote
    /// The call moved to ``CallState/connected``.
    case connected
    /// `disconnect()` was called (first call only).
    case disconnectCalled
    /// The call ended because `disconnect()` was called.
    case disconnectedByLocal
    /// The peer ended the call.
    case disconnectedByRemote
    /// The call failed or ended with an error.
    case error(CallStateError)
    /// The call started recovering from an interruption.
    case reconnecting(CallStateError)
    /// The call recovered from an interruption.
    case reconnected(CallStateReconnectCause)

    /// The Insights group of every event here: `"connection"`.
    package static let group = "connection"

    /// The Insights group: `"connection"`.
    package var group: String { Self.group }

    /// The Insights event name, e.g. `"disconnected-by-remote"`.
    package var name: String {
        switch self {
        case .ringing: "ringing"
        case .acceptedByRemote: "accepted-by-remote"
        case .connected: "connected"
        case .disconnectCalled: "disconnect-called"
        case .disconnectedByLocal: "disconnected-by-local"
        case .disconnectedByRemote: "disconnected-by-remote"
        case .error: "error"
        case .reconnecting: "reconnecting"
        case .reconnected: "reconnected"
        }
    }

    /// The error carried by `error` and `reconnecting` events.
    package var error: CallStateError? {
        switch self {
        case .error(let error), .reconnecting(let error): error
        default: nil
        }
    }

    /// The cause carried by `reconnecting` and `reconnected` events.
    package var reconnectCause: CallStateReconnectCause? {
        switch self {
        case .reconnected(let cause): cause
        case .reconnecting(let error):
            CallStateReconnectCause.allCases.first { $0.error.code == error.code }
        default: nil
        }
    }
}
