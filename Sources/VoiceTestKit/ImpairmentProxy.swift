import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// A UDP relay between two endpoints that impairs traffic in user space (loss, jitter, reorder),
/// independently in each direction. Endpoint A sends to ``addressForA`` and receives from it;
/// endpoint B likewise with ``addressForB``. Runs on its own thread until ``stop()``.
package final class ImpairmentProxy: Sendable {
    /// Where endpoint A should send (its "remote").
    package let addressForA: SocketAddress
    /// Where endpoint B should send.
    package let addressForB: SocketAddress
    private let socketA: UDPSocket
    private let socketB: UDPSocket
    private let shared = ProxyShared()

    /// Starts relaying between `a` and `b` with `aToB` and `bToA` impairments. With `a` or `b`
    /// nil, packets for that endpoint are dropped until ``connect(endpointA:)`` or
    /// ``connect(endpointB:)`` names it: for a peer whose media address is known only after the
    /// proxy's address was announced to it (in an SDP offer).
    package init(endpointA a: SocketAddress?, endpointB b: SocketAddress?, aToB: NetworkImpairment, bToA: NetworkImpairment) throws {
        let host = (a ?? b)?.isIPv6 == true ? "::1" : "127.0.0.1"
        socketA = try UDPSocket(bindTo: SocketAddress(host: host, port: 0))
        socketB = try UDPSocket(bindTo: SocketAddress(host: host, port: 0))
        addressForA = socketA.localAddress
        addressForB = socketB.localAddress
        let loop = ProxyLoop(
            socketA: socketA, socketB: socketB, aToB: ImpairmentModel(aToB),
            bToA: ImpairmentModel(bToA), shared: shared)
        shared.endpointA.withLock { $0 = a }
        shared.endpointB.withLock { $0 = b }
        let thread = Thread { loop.run() }
        thread.name = "impairment-proxy"
        thread.start()
    }

    /// Sets (or changes) where traffic for endpoint A goes.
    package func connect(endpointA: SocketAddress) {
        shared.endpointA.withLock { $0 = endpointA }
    }

    /// Sets (or changes) where traffic for endpoint B goes.
    package func connect(endpointB: SocketAddress) {
        shared.endpointB.withLock { $0 = endpointB }
    }

    /// Changes the impairments from now on (packets already queued keep their delivery time).
    package func impair(aToB: NetworkImpairment, bToA: NetworkImpairment) {
        shared.update.withLock { $0 = (aToB, bToA) }
    }

    /// Packets seen, dropped and reordered, both directions together.
    package var counts: (seen: Int, dropped: Int, reordered: Int) { shared.counters.withLock { $0 } }

    /// Stops relaying and closes the sockets. Idempotent.
    package func stop() {
        guard shared.running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        shared.finished.wait()
        socketA.close()
        socketB.close()
    }

    deinit { stop() }
}

/// State the proxy and its thread share.
private final class ProxyShared: Sendable {
    let running = Atomic<Bool>(true)
    let finished = DispatchSemaphore(value: 0)
    let counters = Locked<(seen: Int, dropped: Int, reordered: Int)>((0, 0, 0))
    let endpointA = Locked<SocketAddress?>(nil)
    let endpointB = Locked<SocketAddress?>(nil)
    /// New impairments for the loop to take.
    let update = Locked<(NetworkImpairment, NetworkImpairment)?>(nil)
}

private final class ProxyLoop: @unchecked Sendable {  // used only by the proxy thread
    struct Pending {
        var due: MediaTime
        var toB: Bool
        var bytes: [UInt8]
    }
    let socketA: UDPSocket, socketB: UDPSocket
    var aToB: ImpairmentModel, bToA: ImpairmentModel
    let shared: ProxyShared
    var queue: [Pending] = []
    let clock = MonotonicMediaClock()

    init(
        socketA: UDPSocket, socketB: UDPSocket, aToB: ImpairmentModel,
        bToA: ImpairmentModel, shared: ProxyShared
    ) {
        self.socketA = socketA; self.socketB = socketB
        self.aToB = aToB; self.bToA = bToA; self.shared = shared
    }

    func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
        defer {
            buffer.deallocate()
            shared.finished.signal()
        }
        var fds = [
            pollfd(fd: socketA.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: socketB.fd, events: Int16(POLLIN), revents: 0),
        ]
        while shared.running.load(ordering: .relaxed) {
            if let (newAToB, newBToA) = shared.update.withLock({ u -> (NetworkImpairment, NetworkImpairment)? in
                defer { u = nil }
                return u
            }) {
                aToB = ImpairmentModel(newAToB)
                bToA = ImpairmentModel(newBToA)
            }
            let now = clock.now()
            var timeout: Int32 = 20
            if let first = queue.first { timeout = Int32(max(0, min(20, (first.due - now).nanoseconds / 1_000_000))) }
            _ = poll(&fds, 2, timeout)
            let t = clock.now()
            for (i, socket) in [socketA, socketB].enumerated() where fds[i].revents & Int16(POLLIN) != 0 {
                while let n = socket.receive(into: buffer) {
                    let fromA = i == 0
                    let due = fromA ? aToB.deliveryTime(forPacketAt: t) : bToA.deliveryTime(forPacketAt: t)
                    guard let due else { continue }
                    let p = Pending(due: due, toB: fromA, bytes: Array(UnsafeRawBufferPointer(rebasing: buffer[0..<n])))
                    let index = queue.firstIndex { $0.due > due } ?? queue.endIndex
                    queue.insert(p, at: index)
                }
            }
            let now2 = clock.now()
            let a = shared.endpointA.withLock { $0 }
            let b = shared.endpointB.withLock { $0 }
            while let first = queue.first, first.due <= now2 {
                queue.removeFirst()
                first.bytes.withUnsafeBytes { raw in
                    if !first.toB {
                        if let a { _ = socketA.send(raw, to: a) }
                    } else if let b {
                        _ = socketB.send(raw, to: b)
                    }
                }
            }
            shared.counters.withLock {
                $0 = (aToB.seen + bToA.seen, aToB.dropped + bToA.dropped, aToB.reordered + bToA.reordered)
            }
        }
    }
}
