import NIOCore
import VoiceSupport
import VoiceSIP

/// What the user agent needs of a SIP transport: bind, send, a few questions about connections
/// and shutdown, all on one event loop. Events (received messages, closed
/// connections, ICMP errors) go to the handler the transport was created with, on that loop.
///
/// ``SIPTransportLayer`` is the real one (UDP, TCP, TLS over sockets); tests use an in-memory
/// one, which with an `EmbeddedEventLoop` runs a whole signaling exchange in virtual time.
package protocol SIPTransport: AnyObject, Sendable {
    /// The loop every method's futures complete on and every event is delivered on.
    var eventLoop: any EventLoop { get }
    /// Starts listening for `transport` on a local address; port 0 picks a free port.
    func listen(_ transport: SIPTransportProtocol, host: String, port: Int) -> EventLoopFuture<SIPTransportEndpoint>
    /// Sends `bytes` to `destination`, opening a connection for TCP/TLS if needed.
    func send(_ bytes: [UInt8], to destination: SIPTransportEndpoint, serverName: String?) -> EventLoopFuture<Void>
    /// Whether a TCP/TLS connection to `remote` is open (always false for UDP). On the loop.
    func isConnected(to remote: SIPTransportEndpoint) -> Bool
    /// Whether a TCP/TLS connection to `remote` is open, from any thread.
    func hasConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Bool>
    /// Closes the TCP/TLS connection to `remote`, if any (its users see it as lost).
    func closeConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Void>
    /// Closes every TCP/TLS connection (their users see them as lost): after the host's address
    /// changed, a connection bound to an address it no longer has is dead but may not say so
    /// for minutes. Completes once all are forgotten and reported lost, so that the next sends
    /// open new ones; the closes themselves finish in the background.
    func closeAllConnections() -> EventLoopFuture<Void>
    /// The DNS names a verified TLS certificate of `remote` carries (empty when none). On the loop.
    func verifiedTLSNames(of remote: SIPTransportEndpoint) -> Set<String>
    /// Closes everything; later sends fail with `.shutDown`.
    func shutdown() -> EventLoopFuture<Void>
}

/// Creates the transport of a user agent, given where its events go.
package typealias SIPTransportFactory = @Sendable (
    _ onEvent: @escaping @Sendable (SIPTransportEvent) -> Void
) throws(SIPTransportError) -> any SIPTransport

extension SIPTransportLayer: SIPTransport {}
