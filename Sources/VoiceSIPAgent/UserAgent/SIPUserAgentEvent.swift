import VoiceSIP
import VoiceSupport
/// A call the user agent runs, outgoing or incoming; valid until its session terminates.
package struct SIPCallHandle: Hashable, Sendable, CustomStringConvertible {
    /// A number unique within the user agent.
    package let id: Int
    package var description: String { "call#\(id)" }
}

/// What the user agent reports, on its event loop.
package enum SIPUserAgentEvent: Sendable {
    /// The registration changed state.
    case registration(SIPRegistrationEvent)
    /// A new INVITE arrived; answer with ``SIPUserAgent/ring(_:)``, ``SIPUserAgent/accept(_:)`` or
    /// ``SIPUserAgent/reject(_:statusCode:)``. The call's local media port is in `mediaPort`.
    case incomingCall(SIPCallHandle, invite: SIPRequest, mediaPort: UInt16, replacing: SIPCallHandle? = nil)
    /// A TCP or TLS connection to `remote` closed (the next request to it opens a new one).
    case connectionLost(remote: SIPTransportEndpoint, error: SIPTransportError?)
    /// Keep-alives to the first hop (outbound proxy or registrar) have gone unanswered: the
    /// signaling path through it is dead, though no connection says so (UDP, or a stream whose
    /// peer vanished).
    case flowFailed(hop: SIPTransportEndpoint)
    /// The first hop answers keep-alives again after ``flowFailed(hop:)``.
    case flowRecovered(hop: SIPTransportEndpoint)
    /// Something happened in a call's session (ringing, established, media updated, INFO, ended).
    case call(SIPCallHandle, SIPInviteSessionEvent)
}
