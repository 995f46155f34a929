import VoiceSIP
import VoiceSupport
/// What the transport layer reports to its user, on its event loop.
package enum SIPTransportEvent: Sendable {
    /// A message arrived from `source`. For a stream transport, replies to `source` reuse the
    /// connection it came on.
    case received(SIPMessage, source: SIPTransportEndpoint)
    /// Bytes arrived that do not parse. `bytes` is what was received (a whole datagram, or the
    /// stream's unparseable rest, at most the parser's message limit), so a request's headers can
    /// be salvaged for a 400. A stream connection is closed after this.
    case malformed(SIPParseError, bytes: [UInt8], source: SIPTransportEndpoint)
    /// A TCP or TLS connection to or from `remote` closed; `error` is nil for an orderly close.
    case connectionClosed(remote: SIPTransportEndpoint, error: SIPTransportError?)
    /// A STUN message (RFC 5389) arrived on the UDP SIP socket from `source`: the answer to a
    /// Binding request sent from it.
    case stun([UInt8], source: SIPTransportEndpoint)
    /// A CRLF pong (RFC 5626 §4.4.1) arrived on the TCP or TLS connection with `source`: the
    /// answer to a CRLFCRLF keep-alive.
    case keepAliveAnswered(source: SIPTransportEndpoint)
    /// An ICMP error said a UDP datagram sent to `remote` could not be delivered (port, host or
    /// network unreachable). The socket stays open; what to fail is the user's decision.
    case unreachable(remote: SIPTransportEndpoint, error: SIPTransportError)
}
