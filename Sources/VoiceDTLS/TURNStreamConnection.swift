#if canImport(Glibc)
    import Glibc
#endif
import VoiceAddress
import VoiceSTUN
import CVoiceDTLS
import VoiceICE
import VoiceSupport

/// Why a TCP or TLS connection to a TURN server could not be made.
package enum TURNStreamError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No TCP connection within the time allowed (refused, unreachable, filtered).
    case connectFailed
    /// The TLS handshake failed: a certificate that is not trusted or not for the server's
    /// name, or a protocol error (the reason is OpenSSL's).
    case tls(String)

    package var description: String {
        switch self {
        case .connectFailed: "no TCP connection to the TURN server"
        case .tls(let why): why
        }
    }
}

/// A TCP connection to a TURN server, in the clear or in TLS (RFC 8656 §3.1: `turn:…?transport=tcp`
/// and `turns:`), carrying framed messages (§12.5): each STUN message or ChannelData (padded to
/// four bytes) is read whole, one at a time, and each message written goes whole or not at all.
///
/// In the clear, a read takes exactly one message from the socket (its header, then the rest),
/// so what stays queued keeps the socket readable for a poller. In TLS, records are decrypted
/// into a buffer that holds what is not read yet. Writes the kernel takes only in part keep
/// their rest in a buffer that the next write (or ``flush()``) sends first; a message that does
/// not fit is dropped whole. Buffers are made once: nothing is allocated per message.
///
/// When the server closes the connection, or it breaks, or a message makes no sense, the
/// connection goes quiet (``isBroken``): its descriptor is pointed at a socket that never turns
/// readable, so a poller stops being woken, until ``close()``.
///
/// Threading: one thread at a time (made on one, handed over once to another).
package final class TURNStreamConnection: @unchecked Sendable {
    private var fd: Int32
    private var tls: OpaquePointer?
    /// Plain bytes read and not yet taken as messages (`start..<end`).
    private let inbound: UnsafeMutableRawBufferPointer
    private var inboundStart = 0
    private var inboundEnd = 0
    /// Ciphertext read from the socket, before it goes into TLS.
    private let cipher: UnsafeMutableRawBufferPointer
    /// Bytes for the socket that it did not take yet (`start..<end`).
    private let pending: UnsafeMutableRawBufferPointer
    private var pendingStart = 0
    private var pendingEnd = 0
    package private(set) var isBroken = false
    /// Messages dropped because the connection could not take them.
    package private(set) var droppedWrites = 0
    /// Why it broke, when it did.
    package private(set) var failure: String?

    /// The largest message either way: a full-size datagram with its ChannelData header.
    package static let messageCapacity = 1_500 + 8

    private init(descriptor: Int32, tls: OpaquePointer?) {
        fd = descriptor
        self.tls = tls
        inbound = .allocate(byteCount: 32 * 1_024, alignment: 8)
        cipher = .allocate(byteCount: 16 * 1_024 + 512, alignment: 8)
        pending = .allocate(byteCount: 64 * 1_024, alignment: 8)
    }

    /// Takes over a connected TCP socket (in the clear).
    package convenience init(adopting descriptor: Int32) {
        self.init(descriptor: descriptor, tls: nil)
        Self.makeNonBlocking(descriptor)
    }

    deinit {
        close()
        inbound.deallocate()
        cipher.deallocate()
        pending.deallocate()
    }

    /// The socket, for a poller to watch (it turns readable when a message may be complete).
    package var descriptor: Int32? { fd >= 0 ? fd : nil }

    /// Connects to `server` over TCP within `timeout` and, with `tlsServerName`, runs the TLS
    /// handshake, checking the server's certificate for that name (against the system's trust
    /// store and `caFile`). Blocking: run it where waiting is allowed.
    package static func connect(
        to server: TransportAddress, tlsServerName: String?, caFile: String? = nil, timeout: MediaTime,
        clock: any MediaClock = MonotonicMediaClock()
    ) throws(TURNStreamError) -> TURNStreamConnection {
        let start = clock.now()
        guard let descriptor = tcpConnect(to: TransportAddress(ip: server.ip, port: server.port), within: timeout) else {
            throw .connectFailed
        }
        guard let tlsServerName else { return TURNStreamConnection(descriptor: descriptor, tls: nil) }
        guard let session = voice_tls_client_new(tlsServerName, caFile) else {
            Glibc.close(descriptor)
            throw .tls("TLS: no client context")
        }
        let connection = TURNStreamConnection(descriptor: descriptor, tls: session)
        while true {
            let state = voice_tls_advance(session)
            connection.moveTLSOutput()
            connection.flush()
            if state == VOICE_DTLS_CONNECTED { return connection }
            if state == VOICE_DTLS_FAILED { throw .tls(String(cString: voice_tls_error(session))) }
            let left = timeout - (clock.now() - start)
            guard left > .zero else { throw .tls("TLS handshake: no answer in \(timeout)") }
            var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, Int32(max(1, left.milliseconds))) > 0, connection.readCiphertext() else {
                throw .tls("TLS handshake: " + (connection.failure ?? "no answer in \(timeout)"))
            }
        }
    }

    // MARK: - Reading

    /// Takes one whole message into `buffer`; its length, or nil when none is complete yet (or
    /// the connection broke).
    package func readMessage(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard fd >= 0, !isBroken, let base = inbound.baseAddress else { return nil }
        while true {
            let available = inboundEnd - inboundStart
            if available >= 4 {
                let head = base + inboundStart
                let bytes = head.assumingMemoryBound(to: UInt8.self)
                guard let length = TURN.framedLength(header: bytes[0], bytes[1], bytes[2], bytes[3]), length <= Self.messageCapacity,
                    length <= buffer.count
                else {
                    breakConnection("a message a TURN server does not send: the stream is out of step")
                    return nil
                }
                if available >= length {
                    buffer.baseAddress?.copyMemory(from: head, byteCount: length)
                    inboundStart += length
                    if inboundStart == inboundEnd { (inboundStart, inboundEnd) = (0, 0) }
                    return length
                }
                guard fill(upTo: length - available) else { return nil }
            } else {
                guard fill(upTo: 4 - available) else { return nil }
            }
        }
    }

    /// Brings more plain bytes into the inbound buffer (in the clear, at most `needed`, so the
    /// socket keeps what belongs to later messages); false when none came.
    private func fill(upTo needed: Int) -> Bool {
        guard let base = inbound.baseAddress else { return false }
        if inboundStart > 0, inbound.count - inboundEnd < Self.messageCapacity {
            (base).copyMemory(from: base + inboundStart, byteCount: inboundEnd - inboundStart)
            inboundEnd -= inboundStart
            inboundStart = 0
        }
        guard let tls else {
            let n = recv(fd, base + inboundEnd, min(needed, inbound.count - inboundEnd), Int32(MSG_DONTWAIT))
            if n > 0 {
                inboundEnd += n
                return true
            }
            if n == 0 || (errno != EAGAIN && errno != EINTR) { breakConnection(n == 0 ? "the server closed the connection" : "read failed") }
            return false
        }
        while true {
            let n = voice_tls_read(tls, (base + inboundEnd).assumingMemoryBound(to: UInt8.self), inbound.count - inboundEnd)
            moveTLSOutput()
            if n > 0 {
                inboundEnd += n
                return true
            }
            if n < 0 {
                breakConnection(String(cString: voice_tls_error(tls)))
                return false
            }
            guard readCiphertext() else { return false }
        }
    }

    /// Feeds TLS what the socket has; false when it had nothing (or the connection ended).
    private func readCiphertext() -> Bool {
        guard let tls, let base = cipher.baseAddress else { return false }
        let n = recv(fd, base, cipher.count, Int32(MSG_DONTWAIT))
        if n > 0 { return voice_tls_feed(tls, base.assumingMemoryBound(to: UInt8.self), n) == 1 }
        if n == 0 || (errno != EAGAIN && errno != EINTR) { breakConnection(n == 0 ? "the server closed the connection" : "read failed") }
        return false
    }

    // MARK: - Writing

    /// Writes one message, whole, or drops it whole (false) when the connection cannot take it.
    package func write(_ message: UnsafeRawBufferPointer) -> Bool {
        guard fd >= 0, !isBroken else { return false }
        flush()
        guard let tls else {
            guard pendingStart == pendingEnd else { return queue(message) }
            let n = send(fd, message.baseAddress, message.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            if n == message.count { return true }
            if n < 0, errno != EAGAIN, errno != EINTR {
                breakConnection("write failed")
                return false
            }
            return queue(UnsafeRawBufferPointer(rebasing: message[max(0, n)...]))
        }
        // Encrypted only when its record surely fits in what waits for the socket.
        compactPending()
        guard pending.count - pendingEnd >= message.count + 256, let bytes = message.baseAddress else {
            droppedWrites += 1
            return false
        }
        guard voice_tls_write(tls, bytes.assumingMemoryBound(to: UInt8.self), message.count) == message.count else {
            breakConnection(String(cString: voice_tls_error(tls)))
            return false
        }
        moveTLSOutput()
        flush()
        return true
    }

    /// Whether bytes still wait for the socket.
    package var hasPendingWrites: Bool { pendingStart < pendingEnd }

    /// Sends what waits, as far as the socket takes it.
    package func flush() {
        guard fd >= 0, !isBroken, pendingStart < pendingEnd, let base = pending.baseAddress else { return }
        let n = send(fd, base + pendingStart, pendingEnd - pendingStart, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        if n > 0 { pendingStart += n }
        if pendingStart == pendingEnd { (pendingStart, pendingEnd) = (0, 0) }
        if n < 0, errno != EAGAIN, errno != EINTR { breakConnection("write failed") }
    }

    private func queue(_ rest: UnsafeRawBufferPointer) -> Bool {
        compactPending()
        guard rest.count <= pending.count - pendingEnd, let base = pending.baseAddress, let source = rest.baseAddress else {
            droppedWrites += 1
            return false
        }
        (base + pendingEnd).copyMemory(from: source, byteCount: rest.count)
        pendingEnd += rest.count
        return true
    }

    private func compactPending() {
        guard pendingStart > 0, let base = pending.baseAddress else { return }
        base.copyMemory(from: base + pendingStart, byteCount: pendingEnd - pendingStart)
        pendingEnd -= pendingStart
        pendingStart = 0
    }

    /// Moves the ciphertext TLS produced into the pending buffer (the handshake's, a record's).
    private func moveTLSOutput() {
        guard let tls, let base = pending.baseAddress else { return }
        compactPending()
        while voice_tls_pending_output(tls) > 0 {
            let room = pending.count - pendingEnd
            guard room > 0 else {
                // TLS output cannot be dropped in part: the stream would be corrupt.
                breakConnection("the server reads too slowly")
                return
            }
            let n = voice_tls_pop_output(tls, (base + pendingEnd).assumingMemoryBound(to: UInt8.self), room)
            guard n > 0 else { return }
            pendingEnd += n
        }
    }

    // MARK: - The end

    private func breakConnection(_ why: String) {
        guard !isBroken else { return }
        isBroken = true
        failure = why
        // The descriptor stays ours (a poller may still hold it) but names a socket that is never readable.
        let quiet = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if quiet >= 0 {
            _ = dup2(quiet, fd)
            Glibc.close(quiet)
        }
    }

    /// Closes the socket and frees the TLS session. Idempotent.
    package func close() {
        if let tls {
            voice_tls_free(tls)
            self.tls = nil
        }
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    // MARK: - Sockets

    private static func makeNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    /// A non-blocking TCP connection to `server`, made within `limit`; nil when it could not be.
    private static func tcpConnect(to server: TransportAddress, within limit: MediaTime) -> Int32? {
        let family = server.ip.isIPv6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var (storage, length) = server.sockaddr
        let started = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        if started != 0 {
            var fds = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard errno == EINPROGRESS, poll(&fds, 1, Int32(max(1, limit.milliseconds))) > 0,
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error == 0
            else {
                Glibc.close(descriptor)
                return nil
            }
        }
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }
}
