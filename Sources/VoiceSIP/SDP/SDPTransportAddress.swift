/// A host (literal address or name, as written in SDP) and a port.
public struct SDPTransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host as written in `c=` or `a=rtcp`.
    public var host: String
    /// The port.
    public var port: UInt16

    /// Creates an address.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with brackets around an IPv6 literal.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
