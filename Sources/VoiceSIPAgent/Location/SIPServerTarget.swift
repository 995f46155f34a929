/// One place a request may go, as server location found it: a transport, a numeric address and
/// a port, with the host name it came from.
package struct SIPServerTarget: Hashable, Sendable, CustomStringConvertible {
    /// The transport.
    package var transport: SIPTransportProtocol
    /// The numeric IPv4 or IPv6 address.
    package var address: String
    /// The port.
    package var port: Int
    /// The host the address belongs to (an SRV target, or the URI's host).
    package var host: String
    /// The name a TLS certificate is checked against: the URI's domain (RFC 5922 §4.1), not
    /// the SRV target; nil for a numeric host.
    package var serverName: String?

    package init(transport: SIPTransportProtocol, address: String, port: Int, host: String, serverName: String?) {
        self.transport = transport
        self.address = address
        self.port = port
        self.host = host
        self.serverName = serverName
    }

    package var description: String { "\(transport.rawValue) \(address):\(port) (\(host))" }
}
