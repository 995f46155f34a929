/// An IP address and port: where a socket, an ICE candidate or a STUN mapping sends and receives.
package struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    package var ip: IPAddress
    package var port: UInt16

    package init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    package var description: String { ip.isIPv6 ? "[\(ip)]:\(port)" : "\(ip):\(port)" }
}
