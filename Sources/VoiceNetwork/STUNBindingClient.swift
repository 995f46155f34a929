#if canImport(Glibc)
    import Glibc
#endif
import VoiceAddress
import VoiceSTUN
import CVoiceSys
import VoiceSupport

/// Learns the server-reflexive address of a UDP socket with a Binding request (RFC 5389 §7.2.1)
/// sent from that very socket, so the NAT's mapping is the one the socket's later traffic uses.
/// Blocking: run it where waiting is allowed (the media port reservation does, off the loop).
package enum STUNBindingClient {
    /// When the request is sent (ms after the first), and how long to wait for an answer in all:
    /// RFC 5389's doubling RTO from 250 ms, cut short, since a call setup waits for it.
    package static let retransmissions: [Int64] = [0, 250, 750]
    package static let timeout: Int64 = 1_500

    /// Asks `server` (an IPv4 or IPv6 address and port) for the mapped address of the bound UDP
    /// socket `descriptor`. Datagrams that are not the answer are read and dropped.
    /// - Throws: ``STUNError/timedOut``, ``STUNError/errorResponse(_:)``, ``STUNError/socket(_:)``.
    package static func query(descriptor: Int32, server: TransportAddress, clock: any MediaClock = MonotonicMediaClock())
        throws(STUNError) -> TransportAddress
    {
        var generator = SecureRandomNumberGenerator()
        let request = STUNMessage.bindingRequest(using: &generator)
        let bytes = request.serialized
        let start = clock.now()
        var nextSend = 0
        var buffer = [UInt8](repeating: 0, count: 1_500)
        while true {
            let elapsed = (clock.now() - start).nanoseconds / 1_000_000
            if elapsed >= timeout { throw .timedOut }
            if nextSend < retransmissions.count, elapsed >= retransmissions[nextSend] {
                guard send(bytes, from: descriptor, to: server) else { throw .socket(errno) }
                nextSend += 1
            }
            let until = nextSend < retransmissions.count ? retransmissions[nextSend] : timeout
            var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, Int32(max(1, until - elapsed)))
            guard ready > 0 else { continue }
            let n = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0, let response = try? STUNMessage(parsing: buffer[0..<n]),
                response.transactionID == request.transactionID, response.type != .bindingRequest
            else { continue }
            return try TransportAddress(stunResponse: response)
        }
    }

    /// Sends `bytes` from the UDP socket `descriptor` to `server`; false when the kernel refused it.
    /// On a dual-stack socket an IPv4 server is reached through its mapped address.
    package static func send(_ bytes: [UInt8], from descriptor: Int32, to server: TransportAddress) -> Bool {
        var (storage, length) = server.sockaddr
        if !server.ip.isIPv6, voice_is_dual_stack(descriptor) != 0 { voice_map_v4(&storage, &length) }
        let sent = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, bytes, bytes.count, Int32(MSG_DONTWAIT), $0, length) }
        }
        return sent == bytes.count
    }
}
