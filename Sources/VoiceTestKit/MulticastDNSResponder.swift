#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import Foundation
import Synchronization
import VoiceAddress
import VoiceDNS

/// A browser's mDNS responder as a test double: in a namespace, on one interface, it answers
/// queries for its `.local` names as Chromium's does (to the group, ID 0, no question, the
/// address with the cache-flush class and TTL 120, an NSEC beside it). Stopped by ``stop()``
/// or on deinit.
package final class MulticastDNSResponder: Sendable {
    private let descriptor: Int32
    private let interfaceIndex: Int32
    private let names: [String: IPAddress]
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Queries heard for one of its names.
    package let queriesAnswered = Atomic<Int>(0)

    /// Answers for `names` (name → address) on `interface` inside `namespace`.
    package init(names: [String: IPAddress], interface: String, in namespace: NetworkNamespace) throws {
        let (fd, index) = try namespace.perform { () throws -> (Int32, Int32) in
            let index = Int32(bitPattern: if_nametoindex(interface))
            guard index > 0 else { throw NetworkNamespaceError("no interface \(interface)") }
            var error: Int32 = 0
            let fd = voice_mdns_open(AF_INET, &error)
            guard fd >= 0 else { throw NetworkNamespaceError("mDNS socket: errno \(error)") }
            let joined = voice_mdns_join(fd, AF_INET, index)
            guard joined == 0 else {
                close(fd)
                throw NetworkNamespaceError("joining 224.0.0.251: errno \(joined)")
            }
            return (fd, index)
        }
        descriptor = fd
        interfaceIndex = index
        self.names = Dictionary(uniqueKeysWithValues: names.map { (DNSName.normalized($0.key), $0.value) })
        let thread = Thread { [self] in serve() }
        thread.name = "mdns-responder"
        thread.start()
    }

    deinit { stop() }

    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        close(descriptor)
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        var source = [UInt8](repeating: 0, count: 16)
        while !stopped.load(ordering: .acquiring) {
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 1, 50) > 0 else { continue }
            var sourceLength: Int32 = 0
            var index: Int32 = 0
            let count = buffer.withUnsafeMutableBytes { voice_mdns_receive(descriptor, $0.baseAddress, $0.count, &source, &sourceLength, &index) }
            guard count > 0 else { continue }
            let query = Array(buffer.prefix(count))
            for (name, address) in names {
                let asked = [DNSRecordType.any, .a, .aaaa].contains { MulticastDNSResponse.query(for: name, type: $0) == query }
                guard asked else { continue }
                let answer = Self.answer(name, address)
                _ = answer.withUnsafeBytes { voice_mdns_send(descriptor, AF_INET, interfaceIndex, $0.baseAddress, $0.count) }
                queriesAnswered.add(1, ordering: .relaxed)
            }
        }
        finished.signal()
    }

    /// The answer Chromium's responder writes for `name` at `address`.
    package static func answer(_ name: String, _ address: IPAddress) -> [UInt8] {
        let type: UInt8 = address.isIPv6 ? 28 : 1
        var bytes: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 1]
        bytes += DNSMessage.name(name)
        bytes += [0, type, 0x80, 1, 0, 0, 0, 120, 0, UInt8(address.bytes.count)] + address.bytes
        let bitmap: UInt8 = address.isIPv6 ? 0 : 0x40
        bytes += [0xC0, 12, 0, 47, 0x80, 1, 0, 0, 0, 120, 0, address.isIPv6 ? 8 : 5, 0xC0, 12, 0]
        bytes += address.isIPv6 ? [4, 0, 0, 0, 8] : [1, bitmap]
        return bytes
    }
}
