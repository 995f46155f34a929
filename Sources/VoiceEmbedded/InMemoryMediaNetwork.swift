import VoiceMedia
import VoiceRTP
import VoiceSupport

/// A datagram network in memory, for the embedded media engine: ports bound on any address,
/// datagrams delivered after a delay the ``Conditions`` choose (or dropped), in virtual time.
/// Nothing touches the host's network, so tests can give each party the address they like and
/// move it mid-call (``move(_:to:)``, a renumbering or a NAT rebinding).
///
/// Datagrams are copied on send (a test double: the zero-allocation rule is the real
/// engine's). Threading: thread-safe.
package final class InMemoryMediaNetwork: Sendable {
    /// How long a datagram takes from `source` to `destination`, sent at `sentAt`; nil drops it.
    package typealias Conditions = @Sendable (_ source: SocketAddress, _ destination: SocketAddress, _ sentAt: MediaTime) -> MediaTime?
    /// Changes a datagram in flight from `source` (a middlebox, or a peer that writes its
    /// packets differently from ours).
    package typealias Rewriter = @Sendable (_ source: SocketAddress, _ datagram: inout [UInt8]) -> Void

    private struct Pending {
        var due: MediaTime
        var order: Int
        var bytes: [UInt8]
        var source: SocketAddress
        var destination: SocketAddress
    }

    private struct State {
        var now: MediaTime = .zero
        var ports: [SocketAddress: InMemoryMediaTransport] = [:]
        var pending: [Pending] = []
        var order = 0
        var nextPort = 40_000
        var conditions: Conditions?
        var rewriter: Rewriter?
        var delivered = 0
        var dropped = 0
        var unreachable = 0
    }

    private let state: Locked<State>
    /// The wall clock's offset from the network's virtual time (for RTCP's NTP timestamps): a
    /// fixed, plausible date.
    package let wallClockOffset: Int64

    /// A network whose datagrams take `conditions`' delay (nil: arrive at once, at the next
    /// tick that reads them).
    package init(conditions: Conditions? = nil, wallClockOffset: Int64 = 1_795_000_000 * 1_000_000_000) {
        self.state = Locked(State(conditions: conditions))
        self.wallClockOffset = wallClockOffset
    }

    /// Changes the conditions for datagrams sent from now on.
    package func setConditions(_ conditions: Conditions?) {
        state.withLock { $0.conditions = conditions }
    }

    /// Rewrites each datagram sent from now on (nil: none is changed).
    package func setRewriter(_ rewriter: Rewriter?) {
        state.withLock { $0.rewriter = rewriter }
    }

    /// Binds transports on this network.
    package var transports: MediaTransportFactory {
        MediaTransportFactory { [self] address throws(SocketError) in try bind(address) }
    }

    /// A port at `address`; port 0 takes the next free one from 40000.
    /// - Throws: `SocketError` (EADDRINUSE) when the address is taken.
    package func bind(_ address: SocketAddress) throws(SocketError) -> InMemoryMediaTransport {
        try state.withLock { s throws(SocketError) in
            var local = address
            if address.port == 0 {
                repeat {
                    guard let candidate = try? SocketAddress(host: address.host, port: s.nextPort) else {
                        throw SocketError(operation: "bind \(address)", errno: 22)  // EINVAL
                    }
                    local = candidate
                    s.nextPort = s.nextPort >= 65_000 ? 40_000 : s.nextPort + 1
                } while s.ports[local] != nil
            }
            guard s.ports[local] == nil else { throw SocketError(operation: "bind \(address)", errno: 98) }  // EADDRINUSE
            let transport = InMemoryMediaTransport(network: self, address: local)
            s.ports[local] = transport
            return transport
        }
    }

    /// Moves the port bound at `old` to `new`: what is sent to `old` from now on is lost, and
    /// the port sends from `new` (a renumbered host, a NAT that picked a new mapping).
    package func move(_ old: SocketAddress, to new: SocketAddress) throws(SocketError) {
        try state.withLock { s throws(SocketError) in
            guard let transport = s.ports[old] else { throw SocketError(operation: "move \(old)", errno: 99) }  // EADDRNOTAVAIL
            guard s.ports[new] == nil else { throw SocketError(operation: "move to \(new)", errno: 98) }
            s.ports[old] = nil
            s.ports[new] = transport
            transport.address.withLock { $0 = new }
        }
    }

    /// Datagrams delivered, dropped by the conditions, and sent to an address nobody has bound.
    package var counts: (delivered: Int, dropped: Int, unreachable: Int) {
        state.withLock { ($0.delivered, $0.dropped, $0.unreachable) }
    }

    /// Queues a datagram from a port; false once the port is closed.
    fileprivate func send(_ datagram: UnsafeRawBufferPointer, from source: SocketAddress, to destination: SocketAddress) {
        state.withLock { s in
            let delay = s.conditions.map { $0(source, destination, s.now) } ?? .zero
            guard let delay else {
                s.dropped += 1
                return
            }
            s.order += 1
            var bytes = Array(datagram)
            s.rewriter?(source, &bytes)
            s.pending.append(Pending(due: s.now + delay, order: s.order, bytes: bytes, source: source, destination: destination))
        }
    }

    fileprivate func unbind(_ transport: InMemoryMediaTransport) {
        state.withLock { s in
            let address = transport.address.withLock { $0 }
            if s.ports[address] === transport { s.ports[address] = nil }
        }
    }

    /// Moves the network's time to `time`, handing each datagram due by then to its port.
    func advance(to time: MediaTime) {
        state.withLock { s in
            s.now = max(s.now, time)
            guard s.pending.contains(where: { $0.due <= time }) else { return }
            let due = s.pending.filter { $0.due <= time }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
            s.pending.removeAll { $0.due <= time }
            for datagram in due {
                guard let port = s.ports[datagram.destination] else {
                    s.unreachable += 1
                    continue
                }
                port.enqueue(datagram.bytes, from: datagram.source, arrival: datagram.due)
                s.delivered += 1
            }
        }
    }
}

/// A port of an ``InMemoryMediaNetwork``.
package final class InMemoryMediaTransport: MediaTransport, Sendable {
    private struct Received {
        var bytes: [UInt8]
        var source: SocketAddress
        var arrival: MediaTime
    }

    private let network: InMemoryMediaNetwork
    fileprivate let address: Locked<SocketAddress>
    private let queue = Locked<(datagrams: [Received], closed: Bool)>(([], false))

    fileprivate init(network: InMemoryMediaNetwork, address: SocketAddress) {
        self.network = network
        self.address = Locked(address)
    }

    package var localAddress: SocketAddress { address.withLock { $0 } }
    /// Read every tick: there is no descriptor to wait on.
    package var readinessDescriptor: Int32? { nil }

    package func send(_ datagram: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool {
        guard !queue.withLock({ $0.closed }) else { return false }
        network.send(datagram, from: localAddress, to: destination)
        return true
    }

    package func receive(into buffer: UnsafeMutableRawBufferPointer, from source: inout SocketAddress, wallClockOffset: Int64)
        -> ReceivedDatagram?
    {
        guard
            let next = queue.withLock({ q -> Received? in
                guard !q.closed, !q.datagrams.isEmpty else { return nil }
                return q.datagrams.removeFirst()
            })
        else { return nil }
        let n = min(next.bytes.count, buffer.count)
        next.bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        source = next.source
        return ReceivedDatagram(length: n, arrival: next.arrival)
    }

    package func close() {
        let wasOpen = queue.withLock { q -> Bool in
            defer { q = ([], true) }
            return !q.closed
        }
        if wasOpen { network.unbind(self) }
    }

    fileprivate func enqueue(_ bytes: [UInt8], from source: SocketAddress, arrival: MediaTime) {
        queue.withLock { q in
            guard !q.closed else { return }
            q.datagrams.append(Received(bytes: bytes, source: source, arrival: arrival))
        }
    }
}
