#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import Foundation
import Logging
import VoiceAddress
import VoiceDNS
import VoiceSupport

/// Resolves a peer's mDNS `.local` ICE candidates (RFC 6762) on a thread of its own, as
/// ``MulticastDNSLookup`` says: it sends each lookup's queries to the group on every
/// multicast interface, reads what the link answers, and completes each lookup on its thread
/// (never an event loop's, never the media thread's).
///
/// The sockets are bound to port 5353 (shared with avahi or a browser on the host) and join
/// the groups on each interface, because browsers answer to the group only. They are opened
/// on the resolver's thread, in the network namespace of the thread that made the resolver.
/// An answer counts only when its source is on the link it came in on (RFC 6762 §11); answers
/// heard unasked (a browser announces a new name twice) are kept for their TTL, at most 120 s.
/// When the port cannot be opened, each lookup finishes empty and the reason is logged once:
/// such candidates are then dropped, as they were before resolution existed.
package final class MulticastDNSResolver: Sendable {
    package typealias Completion = @Sendable ([String: IPAddress]) -> Void

    /// The resolver calls use unless they are given another (made at its first use).
    package static let shared = MulticastDNSResolver()

    private struct Job {
        var names: [String]
        var timeout: MediaTime
        var completion: Completion
    }

    private let shared: WakingJobQueue<Job>?
    private static let logger = Logger(label: "voice.mdns")

    /// Starts the thread; its sockets open there.
    package init() {
        guard let shared = WakingJobQueue<Job>() else {
            Self.logger.warning("mDNS: no eventfd; .local candidates are dropped")
            self.shared = nil
            return
        }
        self.shared = shared
        let thread = Thread { Self.run(shared) }
        thread.name = "voice-mdns"
        thread.start()
    }

    deinit { shutdown() }

    /// Stops the thread; lookups in flight finish with what they have.
    package func shutdown() { shared?.stop() }

    /// Resolves `names` (see ``MulticastDNSLookup``): `completion` gets each resolved name's
    /// address, on the resolver's thread, within `timeout`.
    package func resolve(_ names: [String], timeout: Duration = .seconds(1), completion: @escaping Completion) {
        guard let shared, shared.enqueue(Job(names: names, timeout: MediaTime(timeout), completion: completion)) else {
            return completion([:])
        }
    }

    // MARK: - On the resolver thread

    private struct Running {
        var lookup: MulticastDNSLookup
        var completion: Completion
    }

    /// An interface the queries go out of: its index, and its addresses with their prefixes.
    private struct Interface {
        var index: Int32
        var subnets: [(IPAddress, Int)]
    }

    private static func run(_ shared: WakingJobQueue<Job>) {
        let clock = MonotonicMediaClock()
        var sockets: [(fd: Int32, family: Int32)] = []
        for family in [AF_INET, AF_INET6] {
            var error: Int32 = 0
            let fd = voice_mdns_open(family, &error)
            if fd >= 0 {
                sockets.append((fd, family))
            } else if family == AF_INET {
                logger.warning("mDNS: port 5353 could not be opened (errno \(error)); .local candidates are dropped")
            }
        }
        var interfaces: [Interface] = []
        var joined: Set<[Int32]> = []
        var running: [Running] = []
        var heard = MulticastDNSCache()
        var buffer = [UInt8](repeating: 0, count: 9_000)
        while true {
            let (jobs, stopped) = shared.take()
            let now = clock.now()
            if !jobs.isEmpty {
                interfaces = multicastInterfaces()
                for interface in interfaces {
                    for socket in sockets where joined.insert([socket.fd, interface.index]).inserted {
                        _ = voice_mdns_join(socket.fd, socket.family, interface.index)
                    }
                }
            }
            for job in jobs {
                guard !sockets.isEmpty else {
                    job.completion([:])
                    continue
                }
                var lookup = MulticastDNSLookup(names: job.names, now: now, timeout: job.timeout)
                let actions = lookup.start(known: heard.fresh(at: now))
                if perform(actions, sockets: sockets, interfaces: interfaces, completion: job.completion) {
                    running.append(Running(lookup: lookup, completion: job.completion))
                }
            }
            if stopped {
                for entry in running { entry.completion(entry.lookup.resolved) }
                for socket in sockets { close(socket.fd) }
                close(shared.wake)
                return
            }
            running = running.compactMap { entry in
                var entry = entry
                let actions = entry.lookup.tick(now: now)
                return perform(actions, sockets: sockets, interfaces: interfaces, completion: entry.completion) ? entry : nil
            }
            var descriptors = [pollfd(fd: shared.wake, events: Int16(POLLIN), revents: 0)]
            descriptors += sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let next = running.compactMap(\.lookup.nextDeadline).min()
            let wait = next.map { Int32(clamping: max(0, ($0 - clock.now()).nanoseconds / 1_000_000) + 1) } ?? 60_000
            _ = poll(&descriptors, nfds_t(descriptors.count), wait)
            if descriptors[0].revents != 0 { shared.drainWake() }
            for (position, socket) in sockets.enumerated() where descriptors[position + 1].revents != 0 {
                while let response = receive(socket.fd, into: &buffer, interfaces: interfaces) {
                    heard.learn(response, at: clock.now())
                    running = running.compactMap { entry in
                        var entry = entry
                        let actions = entry.lookup.received(response)
                        return perform(actions, sockets: sockets, interfaces: interfaces, completion: entry.completion) ? entry : nil
                    }
                }
            }
        }
    }

    /// Carries out a lookup's actions; false once it finished.
    private static func perform(
        _ actions: [MulticastDNSLookup.Action], sockets: [(fd: Int32, family: Int32)], interfaces: [Interface], completion: Completion
    ) -> Bool {
        for action in actions {
            switch action {
            case .send(let query):
                for interface in interfaces {
                    for socket in sockets {
                        _ = query.withUnsafeBytes { voice_mdns_send(socket.fd, socket.family, interface.index, $0.baseAddress, $0.count) }
                    }
                }
            case .finished(let resolved):
                completion(resolved)
                return false
            }
        }
        return true
    }

    /// One datagram read and parsed, if it is a response from the link it came in on; nil when
    /// nothing more is waiting. Anything else read is skipped.
    private static func receive(_ fd: Int32, into buffer: inout [UInt8], interfaces: [Interface]) -> MulticastDNSResponse? {
        while true {
            var source = [UInt8](repeating: 0, count: 16)
            var sourceLength: Int32 = 0
            var index: Int32 = 0
            let count = buffer.withUnsafeMutableBytes { voice_mdns_receive(fd, $0.baseAddress, $0.count, &source, &sourceLength, &index) }
            guard count >= 0 else { return nil }
            guard let from = IPAddress(bytes: source.prefix(Int(sourceLength))),
                isOnLink(from, interface: index, interfaces: interfaces),
                let response = try? MulticastDNSResponse(parsing: Array(buffer.prefix(count)))
            else { continue }
            return response
        }
    }

    /// RFC 6762 §11: a link-local source, or one inside a subnet of the interface it came in on.
    private static func isOnLink(_ source: IPAddress, interface index: Int32, interfaces: [Interface]) -> Bool {
        if source.isLinkLocal { return true }
        guard let interface = interfaces.first(where: { $0.index == index }) else { return false }
        return interface.subnets.contains { subnet, prefix in source.isInSubnet(subnet, prefixLength: prefix) }
    }

    /// The host's interfaces that are up, multicast-capable and not loopback, with their subnets.
    private static func multicastInterfaces() -> [Interface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var byIndex: [Int32: Interface] = [:]
        var order: [Int32] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_MULTICAST) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                let address = entry.pointee.ifa_addr, let mask = entry.pointee.ifa_netmask,
                let ip = Self.ip(address), let netmask = Self.ip(mask)
            else { continue }
            let index = Int32(bitPattern: if_nametoindex(entry.pointee.ifa_name))
            guard index > 0 else { continue }
            let prefix = netmask.bytes.reduce(0) { $0 + $1.nonzeroBitCount }
            if byIndex[index] == nil {
                byIndex[index] = Interface(index: index, subnets: [])
                order.append(index)
            }
            byIndex[index]?.subnets.append((ip, prefix))
        }
        return order.compactMap { byIndex[$0] }
    }

    private static func ip(_ address: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { four in
                withUnsafeBytes(of: four.pointee.sin_addr) { IPAddress(bytes: $0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { six in
                withUnsafeBytes(of: six.pointee.sin6_addr) { IPAddress(bytes: $0) }
            }
        default:
            return nil
        }
    }
}
