/// The state of a call, as Twilio's `TVOCallState`.
///
/// Every call starts in ``connecting`` and ends in ``disconnected``. A caller passes through
/// ``ringing`` before ``connected``; a callee (an accepted invite) never rings. While connected, a
/// media or signaling interruption moves the call to ``reconnecting`` until it recovers or ends.
public enum CallState: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The call is being set up; the initial state of every call.
    case connecting
    /// The callee is being alerted (caller side only).
    case ringing
    /// The call is established; audio flows.
    case connected
    /// The call is recovering from a media or signaling interruption.
    case reconnecting
    /// The call has ended; the final state.
    case disconnected

    /// The lower-case name of the state, e.g. `"reconnecting"`.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .ringing: "ringing"
        case .connected: "connected"
        case .reconnecting: "reconnecting"
        case .disconnected: "disconnected"
        }
    }
}
