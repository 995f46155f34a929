#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import VoiceRTP
import VoiceSupport

/// Why a socket operation failed: the call that failed and its `errno`.
package struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The system call that failed.
    package var operation: String
    /// The `errno` it set.
    package var errno: Int32
    package var description: String { "\(operation) failed: \(String(cString: strerror(errno))) (\(errno))" }

    package init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }
}

/// A non-blocking UDP socket for media. Sends and receives work on caller buffers and never
/// allocate, so the media path can use it per packet.
///
/// Threading: owned by one stream; `send`/`receive` are called from the media engine thread
/// that runs the stream; `close()` only after the stream has left the engine.
package final class UDPSocket: MediaTransport, @unchecked Sendable {
    /// The file descriptor, or -1 once closed.
    package private(set) var fd: Int32
    /// The bound local address.
    package let localAddress: SocketAddress
    /// Bound to the wildcard address: each datagram says which local address it came to, and
    /// sends may name their source address.
    private let isWildcard: Bool
    /// An IPv6 socket that carries IPv4 too (bound to `::` with `IPV6_V6ONLY` off): IPv4
    /// addresses are mapped to `::ffff:a.b.c.d` on the way out and back on the way in, so
    /// nothing above the socket sees a mapped address.
    package let isDualStack: Bool

    /// Opens a socket bound to `address` (port 0 picks a free port).
    package convenience init(bindTo address: SocketAddress) throws(SocketError) {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", errno: errno) }
        // `::` is both families, whatever net.ipv6.bindv6only says.
        if address.isIPv6, address.isWildcard { _ = voice_enable_dual_stack(fd) }
        var addr = address
        let rc = withUnsafePointer(to: &addr.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, address.length) }
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw SocketError(operation: "bind \(address)", errno: e)
        }
        self.init(configuring: fd)
    }

    /// Takes over a UDP socket bound elsewhere (a call's reserved port,
    /// `ReservedMediaPort`): it is made non-blocking and set up as ``init(bindTo:)`` sets up
    /// its own. The socket closes it.
    package convenience init(adopting fd: Int32) throws(SocketError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw SocketError(operation: "fcntl(O_NONBLOCK)", errno: e)
        }
        self.init(configuring: fd)
    }

    /// Reads the bound address and sets the receive buffer and kernel receive stamps.
    private init(configuring fd: Int32) {
        var bound = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.fd = fd
        self.localAddress = SocketAddress(storage: bound, length: len)
        isWildcard = localAddress.isWildcard
        isDualStack = voice_is_dual_stack(fd) != 0
        if isWildcard { _ = voice_enable_packet_info(fd, localAddress.isIPv6 ? AF_INET6 : AF_INET) }
        var size: Int32 = 256 * 1024
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close() }

    /// Marks outgoing packets with a DSCP value (46 = Expedited Forwarding).
    package func setDSCP(_ dscp: UInt8) throws(SocketError) {
        var tos = Int32(dscp) << 2
        let rc: Int32
        if localAddress.isIPv6 {
            rc = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_TCLASS, &tos, socklen_t(MemoryLayout<Int32>.size))
        } else {
            rc = setsockopt(fd, Int32(IPPROTO_IP), IP_TOS, &tos, socklen_t(MemoryLayout<Int32>.size))
        }
        guard rc == 0 else { throw SocketError(operation: "setsockopt(DSCP)", errno: errno) }
        // IPv4 packets on a dual-stack socket take their mark from IP_TOS.
        if isDualStack, setsockopt(fd, Int32(IPPROTO_IP), IP_TOS, &tos, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            throw SocketError(operation: "setsockopt(IP_TOS)", errno: errno)
        }
    }

    /// The DSCP value currently set on the socket.
    package func dscp() -> UInt8 {
        var tos: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        if localAddress.isIPv6 {
            _ = getsockopt(fd, Int32(IPPROTO_IPV6), IPV6_TCLASS, &tos, &len)
        } else {
            _ = getsockopt(fd, Int32(IPPROTO_IP), IP_TOS, &tos, &len)
        }
        return UInt8(truncatingIfNeeded: tos >> 2)
    }

    /// Sends `length` bytes of `buffer` to `destination`. Returns false if the kernel refused
    /// (would block, unreachable); media is lossy, so the caller counts and moves on.
    @discardableResult
    package func send(_ buffer: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool {
        var dest = destination
        if isDualStack { voice_map_v4(&dest.storage, &dest.length) }
        let n = withUnsafePointer(to: &dest.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0, dest.length)
            }
        }
        return n == buffer.count
    }

    /// Sends from `source`'s address when bound to the wildcard (see ``MediaTransport``).
    @discardableResult
    package func send(_ buffer: UnsafeRawBufferPointer, to destination: SocketAddress, from source: SocketAddress?) -> Bool {
        guard isWildcard, let source, source.isIPv6 == destination.isIPv6 else { return send(buffer, to: destination) }
        var to = destination.storage
        var toLength = destination.length
        // On a dual-stack socket an IPv4 destination is mapped; the IPv4 source goes as IP_PKTINFO.
        if isDualStack { voice_map_v4(&to, &toLength) }
        var from = source.storage
        return voice_send_from(fd, buffer.baseAddress, buffer.count, &to, toLength, &from) == buffer.count
    }

    /// Receives one datagram into `buffer`; nil when nothing is waiting. `source` receives the sender.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, source: inout SocketAddress?) -> Int? {
        var from = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = withUnsafeMutablePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0, &len)
            }
        }
        guard n >= 0 else { return nil }
        voice_unmap_v4(&from, &len)
        if source == nil || source?.length != len {
            source = SocketAddress(storage: from, length: len)
        } else {
            source?.storage = from
        }
        return n
    }

    /// Receives one datagram; returns nil when nothing is waiting (no sender reported).
    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let n = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        return n >= 0 ? n : nil
    }

    /// Receives one datagram and the kernel's receive time (wall clock, `CLOCK_REALTIME`), so a
    /// packet read a few milliseconds after it arrived is still timed exactly. Nil when nothing waits.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, arrival: inout timespec?) -> Int? {
        var ts = timespec()
        var has: Int32 = 0
        let n = voice_recv_timestamped(fd, buffer.baseAddress, buffer.count, &ts, &has, nil, nil)
        guard n >= 0 else { return nil }
        arrival = has != 0 ? ts : nil
        return n
    }

    /// Receives one datagram with the kernel's receive time and its sender, written into
    /// `source` in place (no allocation). Nil when nothing waits.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, arrival: inout timespec?, source: inout SocketAddress) -> Int? {
        var ts = timespec()
        var has: Int32 = 0
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = voice_recv_timestamped(fd, buffer.baseAddress, buffer.count, &ts, &has, &source.storage, &length)
        guard n >= 0 else { return nil }
        source.length = length
        arrival = has != 0 ? ts : nil
        return n
    }

    /// The socket itself: readable when a datagram waits.
    package var readinessDescriptor: Int32? { fd >= 0 ? fd : nil }

    /// Receives one datagram with the kernel's receive time, converted to media time by
    /// `wallClockOffset` (wall clock minus media time), and its sender written into `source`.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, from source: inout SocketAddress, wallClockOffset: Int64)
        -> ReceivedDatagram?
    {
        guard isWildcard else {
            var stamp: timespec?
            guard let n = receive(into: buffer, arrival: &stamp, source: &source) else { return nil }
            let arrival = stamp.map { MediaTime(nanoseconds: Int64($0.tv_sec) * 1_000_000_000 + Int64($0.tv_nsec) - wallClockOffset) }
            return ReceivedDatagram(length: n, arrival: arrival)
        }
        var ts = timespec()
        var hasArrival: Int32 = 0
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var local = sockaddr_storage()
        var hasLocal: Int32 = 0
        let n = voice_recv_packet(fd, buffer.baseAddress, buffer.count, &ts, &hasArrival, &source.storage, &length, &local, &hasLocal)
        guard n >= 0 else { return nil }
        source.length = length
        let arrival = hasArrival != 0 ? MediaTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec) - wallClockOffset) : nil
        let destination =
            hasLocal != 0
            ? SocketAddress(
                storage: local,
                length: socklen_t(local.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size))
            : nil
        return ReceivedDatagram(length: n, arrival: arrival, destination: destination)
    }

    /// Closes the socket. Idempotent.
    package func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }
}
