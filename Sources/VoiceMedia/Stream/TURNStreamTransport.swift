#if canImport(Glibc)
    import Glibc
#endif
import VoiceICE
import VoiceRTP
import VoiceSupport

/// The TCP connection to a TURN server (RFC 8656 §3.1, for networks that block UDP) as a media
/// transport: each framed message (a STUN message, or ChannelData padded to four bytes) is one
/// "datagram" from the server, and each datagram sent is written whole or not at all.
///
/// Reads take exactly one message from the socket (its header, then the rest), so what stays
/// queued keeps the socket readable for the engine's poll; a message cut short waits in a buffer
/// for its rest. Writes the kernel takes only in part keep their rest in a buffer that the next
/// send flushes first; a datagram that does not fit is dropped whole (media is lossy; the
/// stream stays in step). Buffers are made once: nothing is allocated per packet.
///
/// When the server closes the connection (or it breaks), the transport goes quiet: its
/// descriptor is pointed at a socket that is never readable, so the engine stops being woken,
/// and the relayed path then loses consent like any dead path.
///
/// Threading: as ``UDPSocket``: used on the media thread that runs the stream.
package final class TURNStreamTransport: MediaTransport, @unchecked Sendable {
    private var fd: Int32
    private let server: SocketAddress
    package let localAddress: SocketAddress
    private let partial: UnsafeMutableRawBufferPointer
    private var partialCount = 0
    private let pending: UnsafeMutableRawBufferPointer
    private var pendingStart = 0
    private var pendingEnd = 0
    /// Whether the connection ended (closed by the server, broken, or out of step).
    package private(set) var isBroken = false
    /// Datagrams dropped because the connection could not take them.
    package private(set) var droppedSends = 0

    /// The largest message either way: a full-size datagram with its ChannelData header.
    static let capacity = 1_500 + 8

    /// Takes over the connected socket `fd` to `server`.
    package init(adopting fd: Int32, server: SocketAddress) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.server = server
        localAddress = SocketAddress(storage: bound, length: length)
        partial = .allocate(byteCount: Self.capacity, alignment: 8)
        pending = .allocate(byteCount: 64 * 1_024, alignment: 8)
    }

    deinit {
        close()
        partial.deallocate()
        pending.deallocate()
    }

    package var readinessDescriptor: Int32? { fd >= 0 ? fd : nil }

    package func receive(into buffer: UnsafeMutableRawBufferPointer, from source: inout SocketAddress, wallClockOffset: Int64)
        -> ReceivedDatagram?
    {
        guard fd >= 0, !isBroken, let base = partial.baseAddress else { return nil }
        if partialCount < 4 {
            guard read(into: base + partialCount, count: 4 - partialCount) else { return nil }
            guard partialCount == 4 else { return nil }
        }
        guard let length = TURN.framedLength(header: partial[0], partial[1], partial[2], partial[3]), length <= Self.capacity,
            length <= buffer.count
        else {
            // Not a message a TURN server sends: the stream is out of step for good.
            breakConnection()
            return nil
        }
        if partialCount < length {
            guard read(into: base + partialCount, count: length - partialCount), partialCount == length else { return nil }
        }
        buffer.baseAddress?.copyMemory(from: base, byteCount: length)
        partialCount = 0
        source = server
        return ReceivedDatagram(length: length, arrival: nil)
    }

    /// Reads up to `count` bytes into `destination`; false when nothing came (or the connection ended).
    private func read(into destination: UnsafeMutableRawPointer, count: Int) -> Bool {
        let n = recv(fd, destination, count, Int32(MSG_DONTWAIT))
        if n > 0 {
            partialCount += n
            return true
        }
        if n == 0 || (errno != EAGAIN && errno != EINTR) { breakConnection() }
        return false
    }

    package func send(_ datagram: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool {
        guard fd >= 0, !isBroken else { return false }
        flush()
        guard pendingStart == pendingEnd else { return queue(datagram) }
        let n = Glibc.send(fd, datagram.baseAddress, datagram.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        if n == datagram.count { return true }
        if n < 0, errno != EAGAIN, errno != EINTR {
            breakConnection()
            return false
        }
        return queue(UnsafeRawBufferPointer(rebasing: datagram[max(0, n)...]))
    }

    /// Keeps the unsent rest of a datagram for the next flush; drops it whole when it does not fit.
    private func queue(_ rest: UnsafeRawBufferPointer) -> Bool {
        if pendingStart == pendingEnd {
            pendingStart = 0
            pendingEnd = 0
        }
        guard rest.count <= pending.count - pendingEnd, let base = pending.baseAddress, let source = rest.baseAddress else {
            droppedSends += 1
            return false
        }
        (base + pendingEnd).copyMemory(from: source, byteCount: rest.count)
        pendingEnd += rest.count
        return true
    }

    private func flush() {
        guard pendingStart < pendingEnd, let base = pending.baseAddress else { return }
        let n = Glibc.send(fd, base + pendingStart, pendingEnd - pendingStart, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        if n > 0 { pendingStart += n }
        if n < 0, errno != EAGAIN, errno != EINTR { breakConnection() }
    }

    /// The connection is over: the descriptor now names a socket that never turns readable
    /// (the engine's poll forgets the old one as it closes), until ``close()``.
    private func breakConnection() {
        guard !isBroken else { return }
        isBroken = true
        let quiet = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if quiet >= 0 {
            _ = dup2(quiet, fd)
            Glibc.close(quiet)
        }
    }

    package func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
