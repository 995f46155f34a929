import NIOCore
import VoiceSupport
import NIOPosix
import VoiceSIP

/// Picks the transport, address and port a request goes to from a SIP URI, a reduced RFC 3263:
/// `transport=` or the scheme (`sips` → TLS) picks the transport, else the user agent's own;
/// an explicit port or the transport's default; a numeric host is used as is and a name is
/// resolved with the system resolver (A/AAAA; NAPTR and SRV lookups are not done).
struct SIPTargetResolver: Sendable {
    /// Where a URI leads before its host is resolved.
    struct Target: Sendable, Equatable {
        var transport: SIPTransportProtocol
        var host: String
        var port: Int
        /// The name to verify a TLS certificate against; nil for numeric hosts.
        var serverName: String?
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
        return Target(transport: transport, host: host, port: uri.port ?? transport.defaultPort, serverName: isNumeric ? nil : host)
    }

    /// Resolves `target` to an endpoint; names go to the system resolver on NIO's thread pool.
    func resolve(_ target: Target, on eventLoop: EventLoop) -> EventLoopFuture<SIPTransportEndpoint> {
        if let address = try? NIOCore.SocketAddress(ipAddress: target.host, port: target.port) {
            return eventLoop.makeSucceededFuture(SIPTransportEndpoint(transport: target.transport, address: address))
        }
        return NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
            do {
                let address = try NIOCore.SocketAddress.makeAddressResolvingHost(target.host, port: target.port)
                return SIPTransportEndpoint(transport: target.transport, address: address)
            } catch {
                throw SIPTransportError(.dnsResolution, "\(target.host): \(error)")
            }
        }
    }
}
