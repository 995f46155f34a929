#if canImport(Glibc)
    import Glibc
#endif
import VoiceSTUN
import CVoiceSys
import VoiceSupport
import Dispatch
import Foundation
import NIOCore
import Synchronization
import VoiceNetwork
import VoiceSIP

/// The UDP signaling socket (RFC 3261 §18): one socket both listens and sends, so peers see the
/// address they reply to.
///
/// It asks the kernel for ICMP errors (`IP_RECVERR`) and reads them off the socket's error
/// queue, which is how a request to a port nobody listens on fails at once instead of at
/// Timer B. That is also why it is not a NIO datagram channel: with `IP_RECVERR` the socket's
/// pending error is set by every ICMP message, and NIO closes a datagram channel when a send
/// returns that error, or when the error is anything but "connection refused" (a host
/// unreachable, say) — one forged ICMP packet would then close the signaling socket.
///
/// Threading: a reader thread waits for datagrams and errors, parses them and hands them to
/// the event loop in batches of at most ``batchLimit``, one batch at a time (so a flood fills
/// the kernel's buffer, which drops the excess, rather than the loop's task queue). The loop
/// handles a batch in turns of at most ``LoopJobQueue/turnBudget``, its timers running between
/// turns, so 64 INVITEs arriving together do not hold it for their whole batch. ``send(_:to:)``
/// and ``close()`` are called on the event loop only. The descriptor is closed by the reader
/// thread once it has seen ``close()``, so it is never closed under a send.
final class SIPDatagramSocket: Sendable {
    /// The bound local address.
    let localAddress: NIOCore.SocketAddress
    private let descriptor: CInt
    private let wake: CInt
    private let closed = Atomic<Bool>(false)
    private let delivered = DispatchSemaphore(value: 0)

    /// How many datagrams or errors one hand-over to the event loop carries at most.
    static let batchLimit = 64

    /// An IPv6 socket bound to `::` that carries IPv4 too: IPv4 peers are mapped on the way
    /// out and unmapped on the way in, so above the socket every address is plain.
    let isDualStack: Bool

    private init(descriptor: CInt, wake: CInt, localAddress: NIOCore.SocketAddress) {
        self.descriptor = descriptor
        self.wake = wake
        self.localAddress = localAddress
        isDualStack = voice_is_dual_stack(descriptor) != 0
    }

    /// Opens a socket bound to `address` (port 0 picks one) and starts reading.
    /// - Parameters:
    ///   - address: Where to bind.
    ///   - eventLoop: Where `deliver` is called.
    ///   - parser: Parses each datagram as one message.
    ///   - deliver: Receives each event, on `eventLoop`.
    static func open(
        boundTo address: NIOCore.SocketAddress, eventLoop: EventLoop, parser: SIPMessageParser,
        deliver: @escaping @Sendable (SIPTransportEvent) -> Void
    ) throws(SIPTransportError) -> SIPDatagramSocket {
        let family = address.protocol == .inet6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SIPTransportError(.bindFailed, "socket: \(describe(errno))") }
        var on: CInt = 1
        // `::` is both families, whatever net.ipv6.bindv6only says; ICMP errors of IPv4 peers too.
        if family == AF_INET6, address.ipAddress == "::" {
            _ = voice_enable_dual_stack(fd)
            _ = voice_enable_datagram_errors(fd, AF_INET)
        }
        let bound = address.withSockAddr { pointer, length in
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size)) == 0
                && voice_enable_datagram_errors(fd, family) == 0
                && bind(fd, pointer, socklen_t(length)) == 0
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        let wake = CVoiceSys.eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard bound, named, wake >= 0, let local = Self.address(storage, length) else {
            let error = errno
            Glibc.close(fd)
            if wake >= 0 { Glibc.close(wake) }
            throw SIPTransportError(.bindFailed, "\(address): \(describe(error))")
        }
        let socket = SIPDatagramSocket(descriptor: fd, wake: wake, localAddress: local)
        let thread = Thread { socket.readUntilClosed(eventLoop: eventLoop, parser: parser, deliver: deliver) }
        thread.name = "voice-sip-udp"
        thread.start()
        return socket
    }

    // MARK: - On the event loop

    /// Sends one datagram. A send that finds the socket full is dropped, as the network might
    /// drop it (UDP transactions retransmit). An error the socket was still holding from an
    /// earlier ICMP message (the kernel reports it to the next send) is not this send's: the
    /// send is tried again, up to three times in all.
    func send(_ bytes: [UInt8], to destination: NIOCore.SocketAddress) throws(SIPTransportError) {
        guard !closed.load(ordering: .acquiring) else { throw SIPTransportError(.shutDown, "the UDP socket is closed") }
        var error: CInt = 0
        var target = sockaddr_storage()
        var targetLength = destination.withSockAddr { pointer, length -> socklen_t in
            withUnsafeMutableBytes(of: &target) { $0.baseAddress?.copyMemory(from: pointer, byteCount: min(length, MemoryLayout<sockaddr_storage>.size)) }
            return socklen_t(length)
        }
        if isDualStack { voice_map_v4(&target, &targetLength) }
        for _ in 0..<3 {
            let sent = bytes.withUnsafeBytes { raw in
                withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), $0, targetLength)
                    }
                }
            }
            if sent >= 0 { return }
            error = errno
            if error == EAGAIN || error == EWOULDBLOCK { return }
        }
        throw SIPTransportError(.sendFailed, "to \(destination): \(Self.describe(error))")
    }

    /// Stops reading; the reader thread closes the socket. Later sends fail with `.shutDown`.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
        delivered.signal()
    }

    // MARK: - On the reader thread

    private func readUntilClosed(eventLoop: EventLoop, parser: SIPMessageParser, deliver: @escaping @Sendable (SIPTransportEvent) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while !closed.load(ordering: .acquiring) {
            fds[0].revents = 0
            fds[1].revents = 0
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
            if closed.load(ordering: .acquiring) || fds[0].revents & Int16(POLLNVAL) != 0 { break }
            var events: [SIPTransportEvent] = []
            if fds[0].revents & Int16(POLLERR) != 0 { events += readErrors() }
            while events.count < Self.batchLimit {
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let count = buffer.withUnsafeMutableBytes { raw in
                    withUnsafeMutablePointer(to: &storage) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0, &length)
                        }
                    }
                }
                if count < 0 {
                    let error = errno
                    if error == EINTR { continue }
                    if error == EAGAIN || error == EWOULDBLOCK { break }
                    // The read returned an ICMP error the socket was holding: read the queue.
                    events += readErrors()
                    break
                }
                guard let source = Self.address(storage, length) else { continue }
                if let event = Self.event(buffer[..<count], from: source, parser: parser) { events.append(event) }
            }
            guard !events.isEmpty else { continue }
            let batch = events[...]
            eventLoop.execute { self.deliverInTurns(batch, on: eventLoop, to: deliver) }
            delivered.wait()
        }
        Glibc.close(descriptor)
        Glibc.close(wake)
    }

    /// On the loop: delivers `events` until the turn's budget is spent, then queues the rest
    /// behind the loop's due timers and tasks. Lets the reader go on once all are delivered.
    private func deliverInTurns(
        _ events: ArraySlice<SIPTransportEvent>, on eventLoop: EventLoop, to deliver: @escaping @Sendable (SIPTransportEvent) -> Void
    ) {
        let deadline = NIODeadline.now() + LoopJobQueue.turnBudget
        var rest = events
        while let event = rest.popFirst() {
            deliver(event)
            if !rest.isEmpty, NIODeadline.now() >= deadline {
                let remaining = rest
                eventLoop.execute { self.deliverInTurns(remaining, on: eventLoop, to: deliver) }
                return
            }
        }
        delivered.signal()
    }

    /// A datagram as a transport event: a message, a malformed one, a STUN message (RFC 5389
    /// shares the port with SIP, RFC 5626 §4.4.2), or nothing for a keep-alive (only CR, LF or NUL).
    private static func event(_ bytes: ArraySlice<UInt8>, from address: NIOCore.SocketAddress, parser: SIPMessageParser) -> SIPTransportEvent? {
        if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) { return nil }
        let source = SIPTransportEndpoint(transport: .udp, address: address)
        let datagram = Array(bytes)
        if STUNMessage.looksLikeSTUN(datagram) { return .stun(datagram, source: source) }
        do {
            return .received(try parser.parse(datagram: datagram), source: source)
        } catch {
            return .malformed(error, bytes: datagram, source: source)
        }
    }

    /// Reads the error queue empty and clears the socket's pending error, returning an event
    /// for each ICMP error that says a destination is unreachable.
    private func readErrors() -> [SIPTransportEvent] {
        var events: [SIPTransportEvent] = []
        // Bounded: the queue is limited by the receive buffer, and one batch must stay small.
        for _ in 0..<Self.batchLimit {
            var storage = sockaddr_storage()
            var length = socklen_t(0)
            var error: CInt = 0
            var fromICMP: CInt = 0
            guard voice_recv_datagram_error(descriptor, &storage, &length, &error, &fromICMP) == 1 else { break }
            guard fromICMP == 1, Self.unreachableErrors.contains(error), let destination = Self.address(storage, length) else { continue }
            let remote = SIPTransportEndpoint(transport: .udp, address: destination)
            events.append(.unreachable(remote: remote, error: SIPTransportError(.unreachable, "\(destination): \(Self.describe(error))")))
        }
        // Reading the queue leaves the last error pending on the socket; clear it.
        var pending: CInt = 0
        var size = socklen_t(MemoryLayout<CInt>.size)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &pending, &size)
        return events
    }

    /// The errors that say the destination cannot be reached: port, host or network
    /// unreachable, or administratively prohibited. Others (a smaller path MTU, a parameter
    /// problem) say nothing about whether the peer is there.
    static let unreachableErrors: Set<CInt> = [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENONET, EACCES]

    /// The address in `storage`; an IPv4-mapped one (a dual-stack socket's IPv4 peer) as plain IPv4.
    private static func address(_ storage: sockaddr_storage, _ length: socklen_t) -> NIOCore.SocketAddress? {
        var storage = storage
        var length = length
        voice_unmap_v4(&storage, &length)
        switch Int32(storage.ss_family) {
        case AF_INET where Int(length) >= MemoryLayout<sockaddr_in>.size:
            return NIOCore.SocketAddress(withUnsafeBytes(of: &storage) { $0.loadUnaligned(as: sockaddr_in.self) }, host: "")
        case AF_INET6 where Int(length) >= MemoryLayout<sockaddr_in6>.size:
            return NIOCore.SocketAddress(withUnsafeBytes(of: &storage) { $0.loadUnaligned(as: sockaddr_in6.self) }, host: "")
        default:
            return nil
        }
    }

    static func describe(_ error: CInt) -> String { "\(String(cString: strerror(error))) (\(error))" }
}
