import NIOCore

/// One call the user agent runs: its session machine, the local media port its SDP carries,
/// and the session's running timers.
struct SIPUserAgentCall {
    var session: SIPInviteSession
    var mediaPort: UInt16
    var timers: [SIPInviteSessionTimer: Scheduled<Void>] = [:]
    /// The dialog-routing key registered for it (Call-ID and our tag).
    var routingKey: String
}
