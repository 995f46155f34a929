import NIOCore
import VoiceSIP
import VoiceSIPAgent

/// SIP datagrams between in-memory transports on one event loop: no sockets, no real time.
/// With an `EmbeddedEventLoop`, a whole exchange (retransmissions, timeouts) runs in virtual time
/// as the test advances the loop.
///
/// Each transport listens on an address of its choosing (port 0 picks the next free one); a
/// datagram to an address nobody listens on is dropped, as on a real network. Every datagram is
/// recorded with the loop's time, for tests to read. Use it on its loop only.
package final class SIPMemoryNetwork: @unchecked Sendable {
    // @unchecked: every var is touched on `loop` only.

    /// One datagram as it was sent.
    package struct Datagram: Sendable {
        package var time: NIODeadline
        package var source: SIPTransportEndpoint
        package var destination: SIPTransportEndpoint
        package var bytes: [UInt8]
        /// The datagram parsed, if it parses.
        package var message: SIPMessage? { try? SIPMessageParser().parse(datagram: bytes) }
    }

    package let loop: any EventLoop
    private var transports: [SIPTransportEndpoint: SIPMemoryTransport] = [:]
    private var nextPort = 40_000
    /// Every datagram sent so far, oldest first.
    package private(set) var sent: [Datagram] = []
    /// Datagrams for which this returns true are recorded as sent but never delivered: a link
    /// that loses them (say every ACK, or everything to one address).
    package var drops: ((Datagram) -> Bool)?
    /// How long a datagram takes to arrive (zero: at the loop's next turn, at the same instant).
    package var latency: TimeAmount = .zero

    package init(loop: any EventLoop) { self.loop = loop }

    /// A transport factory for ``SIPUserAgent``'s package initializer: its transport lives on
    /// this network.
    package var transportFactory: SIPTransportFactory {
        { onEvent throws(SIPTransportError) in SIPMemoryTransport(network: self, onEvent: onEvent) }
    }

    func bind(_ transport: SIPMemoryTransport, host: String, port: Int) throws(SIPTransportError) -> SIPTransportEndpoint {
        var chosen = port
        if chosen == 0 {
            chosen = nextPort
            nextPort += 1
        }
        let endpoint = try SIPTransportEndpoint(transport: .udp, ip: host, port: chosen)
        guard transports[endpoint] == nil else { throw SIPTransportError(.bindFailed, "\(endpoint) is in use") }
        transports[endpoint] = transport
        return endpoint
    }

    func unbind(_ endpoint: SIPTransportEndpoint) {
        transports[endpoint] = nil
    }

    /// Records the datagram and hands it to whoever listens at `destination` as a task on the
    /// loop (so it arrives after what the sender is doing now, as on a network).
    func send(_ bytes: [UInt8], from source: SIPTransportEndpoint, to destination: SIPTransportEndpoint) {
        let datagram = Datagram(time: loop.now, source: source, destination: destination, bytes: bytes)
        sent.append(datagram)
        if drops?(datagram) == true { return }
        guard latency > .zero else {
            loop.execute { self.transports[destination]?.receive(bytes, from: source) }
            return
        }
        loop.scheduleTask(in: latency) { self.transports[destination]?.receive(bytes, from: source) }
    }
}

/// A UDP-like SIP transport on a ``SIPMemoryNetwork``. TCP and TLS are not offered.
package final class SIPMemoryTransport: SIPTransport, @unchecked Sendable {
    // @unchecked: `local` and `isShutDown` are touched on `eventLoop` only.
    private let network: SIPMemoryNetwork
    private let onEvent: @Sendable (SIPTransportEvent) -> Void
    private let parser = SIPMessageParser()
    private var local: SIPTransportEndpoint?
    private var isShutDown = false

    init(network: SIPMemoryNetwork, onEvent: @escaping @Sendable (SIPTransportEvent) -> Void) {
        self.network = network
        self.onEvent = onEvent
    }

    package var eventLoop: any EventLoop { network.loop }

    /// Binds at once when called on the loop (so a client created on an embedded loop's thread
    /// has its address without running the loop), else on the loop.
    package func listen(_ transport: SIPTransportProtocol, host: String, port: Int) -> EventLoopFuture<SIPTransportEndpoint> {
        let bind = { @Sendable () throws -> SIPTransportEndpoint in
            guard transport == .udp else { throw SIPTransportError(.unsupportedTransport, "the memory network carries UDP only") }
            guard !self.isShutDown else { throw SIPTransportError(.shutDown, "transport is shut down") }
            let endpoint = try self.network.bind(self, host: host, port: port)
            self.local = endpoint
            return endpoint
        }
        guard eventLoop.inEventLoop else { return eventLoop.submit(bind) }
        return eventLoop.makeCompletedFuture(Result { try bind() })
    }

    package func send(_ bytes: [UInt8], to destination: SIPTransportEndpoint, serverName: String?) -> EventLoopFuture<Void> {
        eventLoop.submit { () throws in
            guard !self.isShutDown, let local = self.local else { throw SIPTransportError(.shutDown, "not listening") }
            self.network.send(bytes, from: local, to: destination)
        }
    }

    func receive(_ bytes: [UInt8], from source: SIPTransportEndpoint) {
        guard !isShutDown else { return }
        // A keep-alive (CRLF) is not a message.
        if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) { return }
        do {
            onEvent(.received(try parser.parse(datagram: bytes), source: source))
        } catch {
            onEvent(.malformed(error, bytes: bytes, source: source))
        }
    }

    package func isConnected(to remote: SIPTransportEndpoint) -> Bool { false }
    package func hasConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Bool> { eventLoop.makeSucceededFuture(false) }
    package func closeConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Void> { eventLoop.makeSucceededVoidFuture() }
    package func closeAllConnections() -> EventLoopFuture<Void> { eventLoop.makeSucceededVoidFuture() }
    package func verifiedTLSNames(of remote: SIPTransportEndpoint) -> Set<String> { [] }

    package func shutdown() -> EventLoopFuture<Void> {
        eventLoop.submit {
            self.isShutDown = true
            if let local = self.local { self.network.unbind(local) }
        }
    }
}
