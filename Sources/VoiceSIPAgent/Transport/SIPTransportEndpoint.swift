import NIOCore
import VoiceSupport
import VoiceSIP

/// One end of a SIP hop: a transport and a resolved IP address and port.
///
/// Connection-oriented transports keep one connection per endpoint and reuse it for every
/// message to that endpoint, whichever side opened it (RFC 3261 §18.1.1, §18.2.2).
public struct SIPTransportEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The transport.
    public var transport: SIPTransportProtocol
    /// The IP address and port.
    package var address: NIOCore.SocketAddress

    /// Creates an endpoint. An IPv4 peer seen through a dual-stack socket (`::ffff:a.b.c.d`)
    /// is recorded as the IPv4 address it is, so that it compares equal however it came.
    package init(transport: SIPTransportProtocol, address: NIOCore.SocketAddress) {
        self.transport = transport
        self.address = Self.unmapped(address)
    }

    private static func unmapped(_ address: NIOCore.SocketAddress) -> NIOCore.SocketAddress {
        guard case .v6(let six) = address else { return address }
        let bytes = withUnsafeBytes(of: six.address.sin6_addr) { Array($0) }
        guard bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF,
            let v4 = try? NIOCore.SocketAddress(ipAddress: bytes[12...].map(String.init).joined(separator: "."), port: address.port ?? 0)
        else { return address }
        return v4
    }

    /// Creates an endpoint from a numeric IPv4 or IPv6 address.
    /// - Throws: ``SIPTransportError`` `.invalidAddress` when `ip` is not a numeric address.
    package init(transport: SIPTransportProtocol, ip: String, port: Int) throws(SIPTransportError) {
        do {
            self.init(transport: transport, address: try NIOCore.SocketAddress(ipAddress: ip, port: port))
        } catch {
            throw SIPTransportError(.invalidAddress, "\(ip) is not a numeric IP address")
        }
    }

    /// The numeric host, without brackets (`127.0.0.1`, `::1`).
    public var host: String { address.ipAddress ?? "" }

    /// The port.
    public var port: Int { address.port ?? 0 }

    /// The host as it goes into a URI or Via: IPv6 in brackets (RFC 3261 §25.1, RFC 5118).
    package var hostForURI: String {
        if case .v6 = address { return "[\(host)]" }
        return host
    }

    public var description: String { "\(transport) \(hostForURI):\(port)" }
}
