import VoiceSIP
import VoiceSupport
/// A SIP transport (RFC 3261 §18): the token in Via and in `;transport=` URI parameters.
public enum SIPTransportProtocol: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Datagrams; requests are retransmitted by the transactions.
    case udp = "UDP"
    /// A TCP connection, framed by Content-Length.
    case tcp = "TCP"
    /// TCP inside TLS (`sips:`), with the server certificate verified.
    case tls = "TLS"

    /// Whether the transport delivers reliably (no request retransmission, RFC 3261 §17.1.1.2).
    package var isReliable: Bool { self != .udp }

    /// 5060 for UDP and TCP, 5061 for TLS (RFC 3261 §19.1.2).
    package var defaultPort: Int { self == .tls ? 5061 : 5060 }

    /// The `transport=` URI parameter value: `udp`, `tcp` or `tls`.
    package var uriParameter: String { rawValue.lowercased() }

    /// Parses a Via transport or URI `transport=` value, case-insensitively.
    public init?(token: String) {
        guard let value = SIPTransportProtocol(rawValue: token.uppercased()) else { return nil }
        self = value
    }

    public var description: String { rawValue }
}
