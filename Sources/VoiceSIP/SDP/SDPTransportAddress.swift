/// A host (literal address or name, as written in SDP) and a port.
package struct SDPTransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host as written in `c=` or `a=rtcp`.
    package var host: String
    /// The port.
    package var port: UInt16

    /// Creates an address.
    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with brackets around an IPv6 literal.
    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
