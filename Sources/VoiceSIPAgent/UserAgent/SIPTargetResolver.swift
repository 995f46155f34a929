import NIOCore
import VoiceSupport
import VoiceSIP

/// What a SIP URI says of where its requests go, before server location (RFC 3263, see
/// ``SIPServerLocation``) finds the addresses: `transport=` or the scheme (`sips` → TLS) picks
/// the transport, else the user agent's own; an explicit port or the transport's default.
struct SIPTargetResolver: Sendable {
    /// Where a URI leads before its host is resolved.
    struct Target: Sendable, Hashable {
        var transport: SIPTransportProtocol
        var host: String
        var port: Int
        /// The name to verify a TLS certificate against; nil for numeric hosts.
        var serverName: String?
        /// Whether the URI named the transport (`transport=`, `sips:`) or the agent speaks
        /// only one (WebSocket): NAPTR does not choose it then.
        var transportIsExplicit = false
        /// Whether the URI gave the port: no SRV lookup then.
        var portIsExplicit = false
        /// `sips:`: TLS only.
        var secure = false

        /// What server location is asked.
        var locationRequest: SIPServerLocation.Request {
            SIPServerLocation.Request(
                host: host, port: portIsExplicit ? port : nil, transport: transportIsExplicit ? transport : nil, secure: secure)
        }
    }

    let defaultTransport: SIPTransportProtocol

    /// The transport, host and port for `uri`.
    func target(for uri: SIPURI) throws(SIPTransportError) -> Target {
        let transport: SIPTransportProtocol
        let named = uri.transport.map { SIPTransportProtocol(token: $0) }
        if let named, named?.isWebSocket == true {
            // RFC 7118 §5.2 has one value, `ws`, for both: `sips:` or our own secure WebSocket
            // (a proxy's Record-Route over our wss connection says `transport=ws`) mean wss.
            transport = uri.scheme == .sips || defaultTransport == .wss ? .wss : .ws
        } else if uri.scheme == .sips {
            transport = defaultTransport == .wss ? .wss : .tls
        } else if let token = uri.transport {
            guard let named = SIPTransportProtocol(token: token) else {
                throw SIPTransportError(.unsupportedTransport, "transport=\(token)")
            }
            transport = named
        } else if uri.scheme == .sip {
            transport = defaultTransport
        } else {
            throw SIPTransportError(.invalidAddress, "cannot route to a \(uri.scheme.name): URI")
        }
        let host = uri.host.hasPrefix("[") ? String(uri.host.dropFirst().dropLast()) : uri.host
        guard !host.isEmpty else { throw SIPTransportError(.invalidAddress, "empty host") }
        let isNumeric = (try? NIOCore.SocketAddress(ipAddress: host, port: 0)) != nil
        return Target(
            transport: transport, host: host, port: uri.port ?? transport.defaultPort, serverName: isNumeric ? nil : host,
            transportIsExplicit: uri.transport != nil || uri.scheme == .sips || defaultTransport.isWebSocket,
            portIsExplicit: uri.port != nil, secure: uri.scheme == .sips)
    }
}
