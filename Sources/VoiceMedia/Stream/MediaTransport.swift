import VoiceRTP
import VoiceSupport

/// Where a stream's datagrams go out and come in: a UDP socket in the real engine
/// (``UDPSocket``), an in-memory port in the embedded one (``InMemoryMediaNetwork``). One
/// transport can carry everything a media port receives, RTP, RTCP, STUN and DTLS alike; the
/// stream's driver sorts each datagram by its first byte (``MediaDatagramKind``, RFC 7983).
///
/// Implementers guarantee: ``send(_:to:)`` and ``receive(into:from:wallClockOffset:)`` never
/// block and allocate nothing. Threading: sends and receives come from the engine thread that
/// runs the stream; ``close()`` from any thread once the stream has left the engine.
package protocol MediaTransport: AnyObject, Sendable {
    /// The local address datagrams arrive at.
    var localAddress: SocketAddress { get }
    /// A descriptor that turns readable when a datagram waits, for the engine to watch (epoll);
    /// nil for a transport the engine reads every tick.
    var readinessDescriptor: Int32? { get }
    /// Sends `datagram` to `destination`. Returns false when it was refused (would block,
    /// unreachable, closed): media is lossy, the caller counts and moves on.
    func send(_ datagram: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool
    /// Sends `datagram` to `destination` from the local address `source` (its port ignored),
    /// for a transport bound to the wildcard address: what an ICE candidate's base needs (a
    /// reply must come from the address the request went to). Others ignore `source`.
    func send(_ datagram: UnsafeRawBufferPointer, to destination: SocketAddress, from source: SocketAddress?) -> Bool
    /// Takes one waiting datagram into `buffer`, its sender into `source` (in place), and says
    /// how long it is and when it arrived (nil when the transport cannot tell; the engine then
    /// uses the tick's time). `wallClockOffset` (wall clock minus media time, nanoseconds)
    /// converts a kernel receive stamp. Nil when nothing waits.
    func receive(into buffer: UnsafeMutableRawBufferPointer, from source: inout SocketAddress, wallClockOffset: Int64)
        -> ReceivedDatagram?
    /// Closes the transport; nothing is sent or received afterwards. Idempotent.
    func close()
}

extension MediaTransport {
    package func send(_ datagram: UnsafeRawBufferPointer, to destination: SocketAddress, from source: SocketAddress?) -> Bool {
        send(datagram, to: destination)
    }
}

/// One datagram taken from a transport.
package struct ReceivedDatagram: Hashable, Sendable {
    /// Bytes written into the receive buffer.
    package var length: Int
    /// When it arrived, in media time, if known.
    package var arrival: MediaTime?
    /// The local address it was sent to (port 0), for a transport bound to the wildcard
    /// address; nil otherwise.
    package var destination: SocketAddress?

    package init(length: Int, arrival: MediaTime?, destination: SocketAddress? = nil) {
        self.length = length
        self.arrival = arrival
        self.destination = destination
    }
}

/// Makes the transports of a stream's local addresses: UDP sockets bound on the host, or ports
/// of an in-memory network.
package struct MediaTransportFactory: Sendable {
    /// Binds a transport at `address` (port 0: any free port).
    package let bind: @Sendable (SocketAddress) throws(SocketError) -> any MediaTransport

    package init(bind: @escaping @Sendable (SocketAddress) throws(SocketError) -> any MediaTransport) {
        self.bind = bind
    }

    /// UDP sockets on the host.
    package static let udp = MediaTransportFactory { address throws(SocketError) in try UDPSocket(bindTo: address) }
}
