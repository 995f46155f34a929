#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import NIOCore
import VoiceSupport
import Logging
import VoiceNetwork
import VoiceSIP

/// Finds a free local UDP port for a call's RTP before the SDP is written: binds port 0 on the
/// media address, reads the port the kernel chose, and closes the socket again so the media
/// stream can bind it once the codec and keys are negotiated.
///
/// The kernel picks ephemeral ports at random, so calls set up at once in this process would
/// often be handed a port another call holds only on paper (50 calls at once: a collision in
/// about one run in three, seen as "Address already in use" when the second stream binds). The
/// last ``recentLimit`` ports handed out, and their RTCP neighbours, are therefore never handed
/// out again; the kernel is asked again while the sockets it chose stay open. Another process
/// could still take a port in between.
enum SIPMediaPortReservation {
    /// How many recent reservations are remembered (far more calls than start at once).
    static let recentLimit = 4_096
    private static let recent = Locked(RecentPorts())

    struct RecentPorts {
        var ring: [UInt16] = []
        var set: [UInt16: Int] = [:]
        var next = 0

        /// Whether `port`, as an RTP port with RTCP on `port + 1`, overlaps one handed out.
        func overlaps(_ port: UInt16) -> Bool {
            set[port] != nil || set[port &+ 1] != nil || set[port &- 1] != nil
        }

        mutating func remember(_ port: UInt16) {
            if ring.count < SIPMediaPortReservation.recentLimit {
                ring.append(port)
            } else {
                set.decrementCount(ring[next])
                ring[next] = port
                next = (next + 1) % ring.count
            }
            set[port, default: 0] += 1
        }
    }

    /// A reserved port, and the address and port a STUN server saw it send from (the NAT's),
    /// when one was asked and answered.
    struct Reserved: Sendable {
        var port: UInt16
        var mapped: STUNMappedAddress?
    }

    /// Reserves a port; with `stunServer`, asks it (from the very socket, before closing it) for
    /// the port's server-reflexive address. A STUN failure only leaves `mapped` nil. Blocking.
    static func reserve(host: String, stunServer: STUNMappedAddress?, logger: Logger? = nil) throws(SIPUserAgentError) -> Reserved {
        var descriptor: Int32 = -1
        let port = try reserve(host: host) { descriptor = $0 }
        defer { close(descriptor) }
        guard let stunServer else { return Reserved(port: port) }
        do throws(STUNError) {
            return Reserved(port: port, mapped: try STUNBindingClient.query(descriptor: descriptor, server: stunServer))
        } catch {
            logger?.warning("STUN server \(stunServer) gave no mapped address for media port \(port): \(error)")
            return Reserved(port: port)
        }
    }

    /// Reserves a port. `keep`, if given, takes the bound socket of the chosen port, which the
    /// caller then closes.
    static func reserve(host: String, keep: ((Int32) -> Void)? = nil) throws(SIPUserAgentError) -> UInt16 {
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
        for _ in 0..<64 {
            let descriptor = socket(Int32(address.protocol.rawValue), Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw .noMediaPort("\(host): socket: errno \(errno)") }
            held.append(descriptor)
            let value = try boundPort(of: descriptor, to: address, host: host)
            let taken = recent.withLock { ports -> Bool in
                guard !ports.overlaps(value) else { return false }
                ports.remember(value)
                return true
            }
            if taken {
                if let keep {
                    held.removeLast()
                    keep(descriptor)
                }
                return value
            }
        }
        throw .noMediaPort("\(host): no port clear of recent reservations")
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
