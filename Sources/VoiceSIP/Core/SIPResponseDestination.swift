/// Where a response goes (RFC 3261 §18.2.2, RFC 3581 §4), from the top Via of the request it answers.
package struct SIPResponseDestination: Hashable, Sendable {
    /// True when the response goes back over the connection the request arrived on (reliable
    /// transports). Only when that connection is closed does the driver open a new one to
    /// ``host``:``port``.
    package var reuseConnection: Bool
    /// The address to send to (or connect to): `maddr`, `received`, or the sent-by host.
    /// IPv6 without brackets. A host name here is resolved as RFC 3263 §5 describes.
    package var host: String
    /// The port: `rport` (unreliable transports), else the sent-by port, else the default
    /// for the transport (5061 for TLS, 5060 otherwise).
    package var port: Int
    /// The Via transport, uppercased (UDP, TCP, TLS, ...).
    package var transport: String
    /// True when the response goes to a multicast `maddr`; send it with ``ttl``.
    package var isMulticast: Bool
    /// The Via `ttl` to send a multicast response with (default 1).
    package var ttl: Int?
    /// True when the response must leave from the local address and port the request arrived
    /// on (RFC 3581 §4: the request carried `rport`, so the client may be behind a NAT).
    package var fromReceivingSocket: Bool

    /// Creates a destination.
    package init(
        reuseConnection: Bool, host: String, port: Int, transport: String, isMulticast: Bool = false,
        ttl: Int? = nil, fromReceivingSocket: Bool = false
    ) {
        self.reuseConnection = reuseConnection
        self.host = host
        self.port = port
        self.transport = transport
        self.isMulticast = isMulticast
        self.ttl = ttl
        self.fromReceivingSocket = fromReceivingSocket
    }
}
