#if canImport(Glibc)
    import Glibc
#endif
import VoiceAddress
import VoiceSTUN
import CVoiceSys
import NIOCore
import VoiceSupport
import Logging
import VoiceICE
import VoiceNetwork
import VoiceSIP

/// Reserves a call's local media ports before the SDP is written: binds an RTP socket on a
/// port the kernel picks and an RTCP socket on the next one, and keeps both open in a
/// ``ReservedMediaPort`` that the call's media stream takes over once the codec and keys are
/// negotiated. Because the sockets stay bound, no other call (or process) can be handed the
/// same ports in between: there is no close-and-bind-again race, and no list of ports handed
/// out to stay clear of.
package enum SIPMediaPortReservation {
    /// A reserved port, and the address and port a STUN server saw it send from (the NAT's),
    /// when one was asked and answered; and the TURN relay allocated from it, or why none was.
    struct Reserved: Sendable {
        var sockets: ReservedMediaPort
        var mapped: TransportAddress?
        var relay: TURNRelay?
        /// Each TURN server that gave no relay, and why.
        var relayFailures: [String] = []
        var port: UInt16 { sockets.port }
    }

    /// Reserves a port pair; with `stunServer`, asks it (from the RTP socket) for the port's
    /// server-reflexive address; with `turnServers`, allocates a relay on the first that grants
    /// one (over UDP from the same socket, or over a TCP connection of its own). A STUN or TURN
    /// failure only leaves `mapped` or `relay` nil. Blocking.
    static func reserve(
        host: String, stunServer: TransportAddress?, turnServers: [TURNServer] = [], logger: Logger? = nil
    ) throws(SIPUserAgentError) -> Reserved {
        var reserved = Reserved(sockets: try reserve(host: host))
        let port = reserved.port
        if let stunServer {
            do throws(STUNError) {
                reserved.mapped = try reserved.sockets.withRTPDescriptor { descriptor throws(STUNError) in
                    try STUNBindingClient.query(descriptor: descriptor, server: stunServer)
                }
            } catch {
                logger?.warning("STUN server \(stunServer) gave no mapped address for media port \(port): \(error)")
            }
        }
        for server in turnServers where reserved.relay == nil {
            do throws(TURNError) {
                if server.transport != .udp {
                    reserved.relay = try SIPMediaRelayAllocation.allocateOverStream(server: server)
                } else {
                    reserved.relay = try reserved.sockets.withRTPDescriptor { descriptor throws(TURNError) in
                        try SIPMediaRelayAllocation.allocate(descriptor: descriptor, server: server)
                    }
                }
                // Over UDP the TURN server saw the port too: its mapping stands in for a STUN server's.
                if reserved.mapped == nil, server.transport == .udp, let relay = reserved.relay {
                    reserved.mapped = TransportAddress(ip: relay.mapped.ip, port: relay.mapped.port)
                }
            } catch {
                reserved.relayFailures.append("\(server): \(error)")
                logger?.warning("TURN server \(server) gave no relay for media port \(port): \(error)")
            }
        }
        return reserved
    }

    /// Reserves an RTP port and the RTCP port after it, both bound on `host`. A port whose
    /// neighbour is taken is held until the end of the search, so the kernel offers another.
    package static func reserve(host: String) throws(SIPUserAgentError) -> ReservedMediaPort {
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        let address: SocketAddress
        do {
            address = try SocketAddress(ipAddress: bare, port: 0)
        } catch {
            throw .noMediaPort("\(host): not an IP address")
        }
        // A host without IPv6 (ipv6.disable=1) has no `::`: its IPv4 wildcard does.
        if bare == "::", !ipv6Available { return try reserve(host: "0.0.0.0") }
        for _ in 0..<64 {
            let rtp = try openSocket(address, host: host)
            held.append(rtp)
            let port = try boundPort(of: rtp, to: address, host: host)
            guard port < UInt16.max else { continue }
            let rtcp = try openSocket(address, host: host)
            var neighbour = address
            neighbour.port = Int(port) + 1
            let bound = neighbour.withSockAddr { pointer, length in bind(rtcp, pointer, socklen_t(length)) }
            guard bound == 0 else {
                close(rtcp)
                continue
            }
            held.removeLast()
            return ReservedMediaPort(port: port, rtp: rtp, rtcp: rtcp)
        }
        throw .noMediaPort("\(host): no pair of free ports")
    }

    /// Whether the kernel opens IPv6 sockets at all (asked once).
    /// Whether the host has IPv6 at all (an AF_INET6 socket can be made).
    package static let ipv6Available: Bool = {
        let probe = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        close(probe)
        return true
    }()

    /// A socket for `address`; for `::`, one that carries IPv4 too (a dual-stack host's media
    /// goes out on both families from one port).
    private static func openSocket(_ address: SocketAddress, host: String) throws(SIPUserAgentError) -> Int32 {
        let descriptor = socket(Int32(address.protocol.rawValue), Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .noMediaPort("\(host): socket: errno \(errno)") }
        if address.ipAddress == "::" { _ = voice_enable_dual_stack(descriptor) }
        return descriptor
    }

    /// Binds `descriptor` to `address` (port 0) and reads back the port the kernel chose.
    private static func boundPort(of descriptor: Int32, to address: SocketAddress, host: String)
        throws(SIPUserAgentError) -> UInt16
    {
        let bound = address.withSockAddr { pointer, length in bind(descriptor, pointer, socklen_t(length)) }
        guard bound == 0 else { throw .noMediaPort("\(host): bind: errno \(errno)") }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw .noMediaPort("\(host): getsockname: errno \(errno)") }
        // sin_port and sin6_port sit at the same offset, in network byte order.
        let port = UInt16(bigEndian: withUnsafeBytes(of: storage) { $0.loadUnaligned(fromByteOffset: 2, as: UInt16.self) })
        guard port != 0 else { throw .noMediaPort("\(host): the kernel chose port 0") }
        return port
    }
}
