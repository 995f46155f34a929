import NIOCore
import VoiceSIP
import VoiceSIPAgent

/// SIP between in-memory transports on one event loop: no sockets, no real time. With an
/// `EmbeddedEventLoop`, a whole exchange (retransmissions, timeouts, lost connections) runs in
/// virtual time as the test advances the loop.
///
/// Each transport listens on an address of its choosing (port 0 picks the next free one).
/// - UDP: a datagram to an address nobody listens on is dropped, as on a real network.
/// - TCP: a send to an address with no connection opens one, from an ephemeral port of the
///   sender's host, to the transport listening there (none: the send fails with
///   `connectFailed`, as a refused connection does). Bytes arrive in order and are framed as a
///   real stream is (``SIPStreamFramer``: CRLF keep-alives answered, Content-Length framing).
///   Closing a connection, from either end or by a shutdown, reports it lost at both ends,
///   the far end after what was sent before the close. See ``SIPMemoryConnection``.
///
/// Every datagram and every stream write is recorded with the loop's time, for tests to read.
/// Use it on its loop only.
package final class SIPMemoryNetwork: @unchecked Sendable {
    // @unchecked: every var is touched on `loop` only.

    /// One datagram, or one write on a stream connection, as it was sent.
    package struct Datagram: Sendable {
        package var time: NIODeadline
        package var source: SIPTransportEndpoint
        package var destination: SIPTransportEndpoint
        package var bytes: [UInt8]
        /// The bytes parsed as one message, if they are one.
        package var message: SIPMessage? { try? SIPMessageParser().parse(datagram: bytes) }
    }

    package let loop: any EventLoop
    private var transports: [SIPTransportEndpoint: SIPMemoryTransport] = [:]
    private var nextPort = 40_000
    /// Every datagram and stream write so far, oldest first.
    package private(set) var sent: [Datagram] = []
    /// UDP datagrams for which this returns true are recorded as sent but never delivered: a
    /// link that loses them (say every ACK, or everything to one address). Streams do not lose
    /// bytes; close their connections instead.
    package var drops: ((Datagram) -> Bool)?
    /// How long a datagram or a write takes to arrive (zero: at the loop's next turn, at the
    /// same instant).
    package var latency: TimeAmount = .zero

    package init(loop: any EventLoop) { self.loop = loop }

    /// A transport factory for ``SIPUserAgent``'s package initializer: its transport lives on
    /// this network.
    package var transportFactory: SIPTransportFactory {
        { onEvent throws(SIPTransportError) in SIPMemoryTransport(network: self, onEvent: onEvent) }
    }

    /// A transport on this network whose events go nowhere: bound with `listen`, it is a peer
    /// that accepts connections and datagrams and never answers (a hung process). What reaches
    /// it is in ``sent``.
    package func silentTransport() -> SIPMemoryTransport {
        SIPMemoryTransport(network: self, onEvent: { _ in })
    }

    func bind(
        _ transport: SIPMemoryTransport, _ kind: SIPTransportProtocol, host: String, port: Int
    ) throws(SIPTransportError) -> SIPTransportEndpoint {
        let endpoint = try SIPTransportEndpoint(transport: kind, ip: host, port: port == 0 ? takePort() : port)
        guard transports[endpoint] == nil else { throw SIPTransportError(.bindFailed, "\(endpoint) is in use") }
        transports[endpoint] = transport
        return endpoint
    }

    func unbind(_ endpoint: SIPTransportEndpoint) {
        transports[endpoint] = nil
    }

    private func takePort() -> Int {
        defer { nextPort += 1 }
        return nextPort
    }

    /// Records the datagram and hands it to whoever listens at `destination` as a task on the
    /// loop (so it arrives after what the sender is doing now, as on a network).
    func send(_ bytes: [UInt8], from source: SIPTransportEndpoint, to destination: SIPTransportEndpoint) {
        let datagram = Datagram(time: loop.now, source: source, destination: destination, bytes: bytes)
        sent.append(datagram)
        if drops?(datagram) == true { return }
        deliver { self.transports[destination]?.receive(bytes, from: source) }
    }

    /// Opens a connection from `transport` (its host: `host`) to the transport listening for
    /// TCP at `destination`: the new connection, already known to the listener.
    func connect(
        from transport: SIPMemoryTransport, host: String, to destination: SIPTransportEndpoint
    ) throws(SIPTransportError) -> SIPMemoryConnection {
        guard destination.transport == .tcp, let listener = transports[destination] else {
            throw SIPTransportError(.connectFailed, "\(destination): connection refused")
        }
        let local = try SIPTransportEndpoint(transport: .tcp, ip: host, port: takePort())
        let connection = SIPMemoryConnection(
            opener: SIPMemoryConnection.End(transport: transport, local: local, remote: destination),
            acceptor: SIPMemoryConnection.End(transport: listener, local: destination, remote: local))
        listener.accept(connection)
        return connection
    }

    /// Records a write on `connection` by the end at `from` and delivers it to the other end,
    /// unless the connection closed before it arrives.
    func write(_ bytes: [UInt8], on connection: SIPMemoryConnection, from end: SIPMemoryConnection.End) {
        sent.append(Datagram(time: loop.now, source: end.local, destination: end.remote, bytes: bytes))
        let far = connection.end(facing: end)
        deliver { far.transport.receive(bytes, on: connection, at: far) }
    }

    /// Tells the far end of `connection` (after what was written before) that it closed.
    func close(_ connection: SIPMemoryConnection, from end: SIPMemoryConnection.End) {
        let far = connection.end(facing: end)
        deliver { far.transport.peerClosed(connection, at: far) }
    }

    private func deliver(_ task: @escaping () -> Void) {
        let unchecked = UncheckedTask(run: task)
        guard latency > .zero else {
            loop.execute { unchecked.run() }
            return
        }
        loop.scheduleTask(in: latency) { unchecked.run() }
    }
}

/// A closure run on the network's loop only.
private struct UncheckedTask: @unchecked Sendable {
    let run: () -> Void
}

/// A TCP-like connection between two transports of a ``SIPMemoryNetwork``: ordered, lossless,
/// closed by either end. Each end is known to its transport by the far end's address.
package final class SIPMemoryConnection {
    /// One end: the transport there, its address on this connection and the far end's.
    struct End {
        unowned let transport: SIPMemoryTransport
        let local: SIPTransportEndpoint
        let remote: SIPTransportEndpoint
    }

    let opener: End
    let acceptor: End

    init(opener: End, acceptor: End) {
        self.opener = opener
        self.acceptor = acceptor
    }

    func end(facing end: End) -> End { end.local == opener.local ? acceptor : opener }
}
