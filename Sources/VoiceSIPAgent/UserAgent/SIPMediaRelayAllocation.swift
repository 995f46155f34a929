#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import VoiceICE
import VoiceNetwork
import VoiceSupport

/// Allocates a TURN relay (RFC 8656) from a call's reserved RTP socket before the SDP is
/// written, so the relayed candidate goes into the offer or answer (SIP carries all candidates
/// at once). The allocation runs the ``TURNClient`` value with the socket: the unauthenticated
/// Allocate, the server's 401 challenge answered with the long-term credential, the success.
/// Blocking and bounded: run it where waiting is allowed (the port reservation does, off the loop).
enum SIPMediaRelayAllocation {
    /// How long gathering waits for the allocation in all (two round trips and a lost packet or two).
    static let timeout: MediaTime = .seconds(2)

    /// Allocates on `server` from the bound UDP socket `descriptor`. `clock` must be the media
    /// engine's (the monotonic clock), which the allocation's refresh times are on.
    /// - Throws: the ``TURNError`` the allocation failed with (``TURNError/timedOut`` when
    ///   the server did not answer in ``timeout``).
    static func allocate(descriptor: Int32, server: TURNServer, clock: any MediaClock = MonotonicMediaClock()) throws(TURNError) -> TURNRelay {
        var timing = TURNClient.Timing()
        timing.initialRetransmissionTimeout = .milliseconds(250)
        var client = TURNClient(username: server.username, password: server.password, timing: timing, random: SecureRandomNumberGenerator())
        let start = clock.now()
        // On the clock the media engine runs on (CLOCK_MONOTONIC): the stream that takes the
        // client over keeps its refresh times as they are.
        var actions = client.start(now: start)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        let destination = STUNMappedAddress(address: server.address.ip, port: server.address.port)
        while true {
            for action in actions {
                switch action {
                case .send(let bytes):
                    // A refused send is a lost packet: the retransmission tries again.
                    _ = STUNBindingClient.send(bytes, from: descriptor, to: destination)
                case .allocated(let relayed, let mapped):
                    return TURNRelay(server: server.address, client: client, relayed: relayed, mapped: mapped)
                case .failed(let error):
                    throw error
                default:
                    break
                }
            }
            let elapsed = clock.now() - start
            guard elapsed < timeout else { throw .timedOut }
            var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let wait = min(MediaTime.milliseconds(50), timeout - elapsed)
            if poll(&fds, 1, Int32(max(1, wait.milliseconds))) > 0 {
                let n = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                actions = n > 0 ? client.receive(Array(buffer[0..<n]), now: clock.now()) : []
            } else {
                actions = client.tick(now: clock.now())
            }
        }
    }

    /// Allocates on `server` over a new TCP connection to it (RFC 8656 §3.1: for networks that
    /// block UDP; the relay to peers is UDP still), which the relay then lives on: it comes back
    /// in ``TURNRelay/connection`` for the call's media stream to take over.
    static func allocateOverTCP(server: TURNServer, clock: any MediaClock = MonotonicMediaClock()) throws(TURNError) -> TURNRelay {
        let start = clock.now()
        let destination = STUNMappedAddress(address: server.address.ip, port: server.address.port)
        guard let descriptor = connect(to: destination, within: timeout) else { throw .timedOut }
        let connection = ReservedSocket(descriptor)
        var client = TURNClient(username: server.username, password: server.password, random: SecureRandomNumberGenerator())
        var actions = client.start(now: start)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        while true {
            for action in actions {
                switch action {
                case .send(let bytes):
                    guard sendAll(bytes, on: descriptor) else { throw .timedOut }
                case .allocated(let relayed, let mapped):
                    return TURNRelay(server: server.address, client: client, relayed: relayed, mapped: mapped, connection: connection)
                case .failed(let error):
                    throw error
                default:
                    break
                }
            }
            let elapsed = clock.now() - start
            guard elapsed < timeout else { throw .timedOut }
            var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, Int32(max(1, (timeout - elapsed).milliseconds))) > 0 else { throw .timedOut }
            // One framed message, once all of it is in (peeked first: the rest stays queued).
            var header = [UInt8](repeating: 0, count: 4)
            guard recv(descriptor, &header, 4, Int32(MSG_PEEK | MSG_DONTWAIT)) == 4,
                let length = TURN.framedLength(header: header[0], header[1], header[2], header[3]), length <= buffer.count
            else {
                // Closed, or a stream out of step.
                if recv(descriptor, &header, 4, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 { throw .refused(0) }
                continue
            }
            guard recv(descriptor, &buffer, length, Int32(MSG_PEEK | MSG_DONTWAIT)) == length else { continue }
            let n = recv(descriptor, &buffer, length, Int32(MSG_DONTWAIT))
            actions = n == length ? client.receive(Array(buffer[0..<n]), now: clock.now()) : []
        }
    }

    /// A TCP connection to `server`, made within `limit`; nil when it could not be.
    private static func connect(to server: STUNMappedAddress, within limit: MediaTime) -> Int32? {
        let family = server.address.isIPv6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var (storage, length) = server.socketAddress
        let started = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        if started != 0 {
            var fds = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard errno == EINPROGRESS, poll(&fds, 1, Int32(limit.milliseconds)) > 0,
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error == 0
            else {
                close(descriptor)
                return nil
            }
        }
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    /// Writes all of `bytes` (the connection is new and idle: a short wait at most).
    private static func sendAll(_ bytes: [UInt8], on descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in send(descriptor, raw.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                offset += n
                continue
            }
            guard n < 0, errno == EAGAIN else { return false }
            var fds = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&fds, 1, 500) > 0 else { return false }
        }
        return true
    }

    /// Gives an allocation back (a Refresh with lifetime 0) from the socket it was made on,
    /// for a call whose media never started. Best effort: the server frees it at its lifetime otherwise.
    static func release(_ relay: TURNRelay, descriptor: Int32) {
        var client = relay.client
        if let connection = relay.connection {
            // Over TCP: the Refresh on its connection, which then closes.
            for case .send(let bytes) in client.close(now: .zero) { _ = connection.withDescriptor { sendAll(bytes, on: $0) } }
            connection.release()
            return
        }
        let destination = STUNMappedAddress(address: relay.server.ip, port: relay.server.port)
        for case .send(let bytes) in client.close(now: .zero) {
            _ = STUNBindingClient.send(bytes, from: descriptor, to: destination)
        }
    }
}
