import VoiceSIP
import VoiceSIPAgent

/// Where the client sends its SIP requests first (``VoiceClientConfiguration/outboundProxy``) or
/// registers (``VoiceClientConfiguration/registrar``): checked when it is made, so a bad setting
/// fails where the configuration is built rather than when a call is placed.
///
/// Accepted forms:
/// - `proxy.example.com` or `192.0.2.5`: a host; `sip:` is implied and the port is the
///   transport's default;
/// - `proxy.example.com:5080`: a host and port;
/// - `[2001:db8::5]:5060`, `[2001:db8::5]`, or `2001:db8::5` without a port: an IPv6 address;
/// - `sip:proxy.example.com;transport=tcp`, `sips:proxy.example.com:5061;lr`: a SIP or SIPS URI,
///   whose parameters are kept (`transport=tls` or `sips:` sends over TLS);
/// - `wss://proxy.example.com/sip`, `ws://192.0.2.5:8080/`: a WebSocket server (RFC 7118),
///   its path sent in the handshake; the client then speaks SIP over that WebSocket (port 443
///   for `wss`, 80 for `ws` unless given).
///
/// ```swift
/// let proxy = try SIPServerAddress("sip:proxy.example.com;transport=tls")
/// let gateway = try SIPServerAddress("wss://edge.example.com/sip")
/// ```
public struct SIPServerAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as a SIP URI (a WebSocket URL's as `sip:host;transport=ws`, `sips:` for `wss`).
    package let uri: SIPURI
    /// A WebSocket URL's path (`/sip`); nil for other addresses.
    package let webSocketPath: String?

    /// Parses and checks `string`.
    /// - Throws: ``VoiceError`` 31100 ``VoiceError/Code/malformedRequest`` when `string` is
    ///   empty, has control characters or spaces, has a port of 0 or above 65535, a user part
    ///   or URI headers, is another scheme's URI, or is no host at all; its `failureReason`
    ///   says which.
    public init(_ string: String) throws(VoiceError) {
        let lower = string.lowercased()
        if lower.hasPrefix("ws://") || lower.hasPrefix("wss://") {
            let secure = lower.hasPrefix("wss://")
            let rest = string.dropFirst(secure ? 6 : 5)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var path = String(rest.dropFirst(authority.count))
            if path.contains("#") { throw ServerAddressParser.invalid("SIP server address", string, "has a fragment") }
            if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
            guard !authority.isEmpty, !authority.contains(";") else {
                throw ServerAddressParser.invalid("SIP server address", string, "is not a ws:// or wss:// URL with a host")
            }
            var parsed = try ServerAddressParser.uri(
                String(authority), what: "SIP server address", forms: "a ws:// or wss:// URL", allowsSIPURI: false)
            if secure { parsed.scheme = .sips }
            parsed.parameters.set("transport", "ws")
            uri = parsed
            webSocketPath = path
            return
        }
        uri = try ServerAddressParser.uri(
            string, what: "SIP server address", forms: "host, host:port, a sip:/sips: URI or a ws:/wss: URL", allowsSIPURI: true)
        webSocketPath = nil
    }

    /// The WebSocket transport a `ws://` or `wss://` address takes (`.ws`, `.wss`); nil for others.
    package var webSocketTransport: SIPTransportProtocol? {
        guard webSocketPath != nil || uri.transport?.lowercased() == "ws" else { return nil }
        return uri.scheme == .sips ? .wss : .ws
    }

    /// The host: a name, an IPv4 address, or an IPv6 address without brackets.
    public var host: String { uri.host }

    /// The port, when one was given; otherwise the transport's default (5060, 5061 for TLS) applies.
    public var port: Int? { uri.port }

    /// Whether requests to this server are encrypted: a `sips:` URI, `transport=tls`, or `wss://`.
    package var requiresTLS: Bool { uri.scheme == .sips || uri.transport == "tls" }

    /// The address as a SIP URI, e.g. `sip:proxy.example.com:5080;transport=tcp`, or as the
    /// WebSocket URL it was given as (`wss://proxy.example.com/sip`).
    public var description: String {
        guard let webSocketPath else { return uri.description }
        let port = uri.port.map { ":\($0)" } ?? ""
        return "\(uri.scheme == .sips ? "wss" : "ws")://\(uri.host)\(port)\(webSocketPath)"
    }
}
