#if canImport(Glibc)
    import Glibc
#endif
import VoiceAddress
import VoiceSTUN
import CVoiceSys
import VoiceDTLS
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
        var client = TURNClient(
            username: server.username, password: server.password, timing: timing, asksForIPv6: true, random: SecureRandomNumberGenerator())
        let start = clock.now()
        // On the clock the media engine runs on (CLOCK_MONOTONIC): the stream that takes the
        // client over keeps its refresh times as they are.
        var actions = client.start(now: start)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        let destination = TransportAddress(ip: server.address.ip, port: server.address.port)
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

    /// Allocates on `server` over a new TCP connection to it, in the clear or in TLS (RFC 8656
    /// §3.1: for networks that block UDP; the relay to peers is UDP still), which the relay then
    /// lives on: it comes back in ``TURNRelay/connection`` for the call's media stream to take over.
    static func allocateOverStream(server: TURNServer, clock: any MediaClock = MonotonicMediaClock()) throws(TURNError) -> TURNRelay {
        let start = clock.now()
        var serverName: String?
        if case .tls(let name) = server.transport { serverName = name }
        let connection: TURNStreamConnection
        do throws(TURNStreamError) {
            connection = try TURNStreamConnection.connect(
                to: server.address, tlsServerName: serverName, caFile: server.trustedCertificatesFile, timeout: timeout, clock: clock)
        } catch {
            throw .connection("\(error)")
        }
        var client = TURNClient(username: server.username, password: server.password, asksForIPv6: true, random: SecureRandomNumberGenerator())
        var actions = client.start(now: start)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: TURNStreamConnection.messageCapacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            for action in actions {
                switch action {
                case .send(let bytes):
                    _ = bytes.withUnsafeBytes { connection.write($0) }
                case .allocated(let relayed, let mapped):
                    return TURNRelay(
                        server: server.address, client: client, relayed: relayed, mapped: mapped, connection: ReservedConnection(connection),
                        transport: server.transport)
                case .failed(let error):
                    throw error
                default:
                    break
                }
            }
            actions = []
            if let length = connection.readMessage(into: buffer) {
                actions = client.receive(Array(buffer[0..<length]), now: clock.now())
                continue
            }
            if connection.isBroken { throw .connection(connection.failure ?? "the connection ended") }
            let elapsed = clock.now() - start
            guard elapsed < timeout else { throw .timedOut }
            var fds = pollfd(fd: connection.descriptor ?? -1, events: Int16(connection.hasPendingWrites ? POLLIN | POLLOUT : POLLIN), revents: 0)
            if poll(&fds, 1, Int32(max(1, min(50, (timeout - elapsed).milliseconds)))) > 0 {
                connection.flush()
            } else {
                actions = client.tick(now: clock.now())
            }
        }
    }

    /// Gives an allocation back (a Refresh with lifetime 0) from the socket it was made on,
    /// for a call whose media never started. Best effort: the server frees it at its lifetime otherwise.
    static func release(_ relay: TURNRelay, descriptor: Int32) {
        var client = relay.client
        if let reserved = relay.connection {
            // Over TCP or TLS: the Refresh on its connection, which then closes.
            if let connection = reserved.take(as: TURNStreamConnection.self) {
                for case .send(let bytes) in client.close(now: .zero) { _ = bytes.withUnsafeBytes { connection.write($0) } }
                connection.close()
            }
            return
        }
        let destination = TransportAddress(ip: relay.server.ip, port: relay.server.port)
        for case .send(let bytes) in client.close(now: .zero) {
            _ = STUNBindingClient.send(bytes, from: descriptor, to: destination)
        }
    }
}
