import VoiceAddress
import VoiceRTP

extension TransportAddress {
    /// The address of a socket address (nil for one that is not IPv4 or IPv6).
    package init?(_ address: SocketAddress) {
        guard let ip = IPAddress(address.host), (0...65_535).contains(address.port) else { return nil }
        self.init(ip: ip, port: UInt16(address.port))
    }
}

extension SocketAddress {
    /// The socket address of an ICE transport address.
    package init?(_ address: TransportAddress) {
        guard let made = try? SocketAddress(host: address.ip.description, port: Int(address.port)) else { return nil }
        self = made
    }
}
