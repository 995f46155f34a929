import VoiceSIP
import VoiceSupport
/// A SIP transport (RFC 3261 §18, RFC 7118): the token in Via and in `;transport=` URI parameters.
public enum SIPTransportProtocol: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Datagrams; requests are retransmitted by the transactions.
    case udp = "UDP"
    /// A TCP connection, framed by Content-Length.
    case tcp = "TCP"
    /// TCP inside TLS (`sips:`), with the server certificate verified.
    case tls = "TLS"
    /// A WebSocket (RFC 7118), the `sip` subprotocol, one message per frame: what browsers and
    /// WebRTC gateways speak (`ws://proxy.example.com/sip`).
    case ws = "WS"
    /// A WebSocket inside TLS (`wss://proxy.example.com/sip`), with the server certificate verified.
    case wss = "WSS"

    /// Whether the transport delivers reliably (no request retransmission, RFC 3261 §17.1.1.2).
    package var isReliable: Bool { self != .udp }

    /// Whether the transport encrypts: TLS and secure WebSocket.
    package var isSecure: Bool { self == .tls || self == .wss }

    /// Whether the transport is a WebSocket (RFC 7118).
    package var isWebSocket: Bool { self == .ws || self == .wss }

    /// 5060 for UDP and TCP, 5061 for TLS (RFC 3261 §19.1.2), 80 and 443 for WebSockets (the
    /// HTTP ports, RFC 7118 §5.1).
    package var defaultPort: Int {
        switch self {
        case .udp, .tcp: 5060
        case .tls: 5061
        case .ws: 80
        case .wss: 443
        }
    }

    /// The `transport=` URI parameter value: `udp`, `tcp`, `tls`, or `ws` for both WebSockets
    /// (RFC 7118 §5.2 registers only `ws`; `sips:` marks the secure one).
    package var uriParameter: String { isWebSocket ? "ws" : rawValue.lowercased() }

    /// Parses a Via transport or URI `transport=` value, case-insensitively.
    public init?(token: String) {
        guard let value = SIPTransportProtocol(rawValue: token.uppercased()) else { return nil }
        self = value
    }

    public var description: String { rawValue }
}
