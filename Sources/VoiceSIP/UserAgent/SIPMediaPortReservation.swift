import VoiceMedia

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

    static func reserve(host: String) throws(SIPUserAgentError) -> UInt16 {
        var held: [UDPSocket] = []
        defer { for socket in held { socket.close() } }
        do {
            let address = try SocketAddress(host: host, port: 0)
            for _ in 0..<64 {
                let socket = try UDPSocket(bindTo: address)
                held.append(socket)
                let port = socket.localAddress.port
                guard let value = UInt16(exactly: port), value != 0 else { throw SIPUserAgentError.noMediaPort("port \(port)") }
                let taken = recent.withLock { ports -> Bool in
                    guard !ports.overlaps(value) else { return false }
                    ports.remember(value)
                    return true
                }
                if taken { return value }
            }
            throw SIPUserAgentError.noMediaPort("\(host): no port clear of recent reservations")
        } catch let error as SIPUserAgentError {
            throw error
        } catch {
            throw .noMediaPort("\(host): \(error)")
        }
    }
}
