#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NIOCore
import NIOPosix
import VoiceAddress
import VoiceDNS
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceSIPAgent

/// A UDP name server on loopback that answers each query with whatever `answer` makes of it:
/// the hostile answers c-ares hands the resolver.
private final class ScriptedNameServer: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32
    private let closed = Locked(false)

    init(answer: @escaping @Sendable (_ id: UInt16, _ question: DNSQuestion) -> [UInt8]?) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        let fd = descriptor
        let closed = self.closed
        Thread {
            var buffer = [UInt8](repeating: 0, count: 2_048)
            while !closed.withLock({ $0 }) {
                var peer = sockaddr_storage()
                var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let count = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &peerLength) }
                }
                guard count > 12 else { continue }
                let query = Array(buffer[0..<count])
                // The question, read by hand: a name of labels, then type and class.
                var offset = 12
                var labels: [String] = []
                while offset < query.count, query[offset] != 0, offset + Int(query[offset]) < query.count {
                    labels.append(String(decoding: query[(offset + 1)...(offset + Int(query[offset]))], as: UTF8.self))
                    offset += Int(query[offset]) + 1
                }
                guard offset + 4 < query.count else { continue }
                let type = UInt16(query[offset + 1]) << 8 | UInt16(query[offset + 2])
                let id = UInt16(query[0]) << 8 | UInt16(query[1])
                guard let reply = answer(id, DNSQuestion(labels.joined(separator: "."), DNSRecordType(rawValue: type))) else { continue }
                _ = withUnsafePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, reply, reply.count, 0, $0, peerLength) }
                }
            }
            close(fd)
        }.start()
    }

    func stop() { closed.withLock { $0 = true } }
}

/// The c-ares resolver against real name servers on loopback: dnsmasq, and a scripted one
/// that answers with broken or hostile messages. Each gets a typed error in time, never a hang.
final class DNSResolverTests: XCTestCase {
    private let loop = MultiThreadedEventLoopGroup.singleton.next()

    private func resolver(_ port: Int, timeout: Duration = .milliseconds(300)) throws -> DNSResolver {
        try DNSResolver(.init(nameServers: ["127.0.0.1:\(port)"], timeout: timeout, tries: 1))
    }

    private func outcome(_ resolver: DNSResolver, _ question: DNSQuestion) -> Result<DNSAnswer, DNSError> {
        let result = Result { try resolver.lookup(question, on: loop).wait() }
        return result.mapError { ($0 as? DNSError) ?? DNSError(.resolverFailure, "\($0)") }
    }

    func testDnsmasqAnswersNAPTRSRVAndAddressesAndNoSuchName() throws {
        try requirePeer(DNSServerPeer.executable)
        let server = try DNSServerPeer(records: [
            .namingPointer("example.test", order: 10, preference: 10, service: "SIP+D2U", replacement: "_sip._udp.example.test"),
            .service("_sip._udp.example.test", target: "pbx1.example.test", port: 5070, priority: 10, weight: 60),
            .host("pbx1.example.test", address: "127.0.0.1"),
        ])
        defer { server.stop() }
        let dns = try resolver(server.port)
        defer { dns.shutdown() }
        let naptr = try outcome(dns, DNSQuestion("example.test", .naptr)).get()
        XCTAssertEqual(
            naptr.records,
            [.naptr(DNSNamingPointer(order: 10, preference: 10, flags: "S", service: "SIP+D2U", regexp: "", replacement: "_sip._udp.example.test"))])
        let srv = try outcome(dns, DNSQuestion("_sip._udp.example.test", .srv)).get()
        XCTAssertEqual(srv.records, [.srv(DNSServiceRecord(priority: 10, weight: 60, port: 5070, target: "pbx1.example.test"))])
        XCTAssertEqual(srv.additionalAddresses(for: "pbx1.example.test"), [.address(IPAddress("127.0.0.1")!)])
        XCTAssertEqual(try outcome(dns, DNSQuestion("pbx1.example.test", .a)).get().records, [.address(IPAddress("127.0.0.1")!)])
        guard case .failure(let missing) = outcome(dns, DNSQuestion("nobody.example.test", .a)) else { return XCTFail("answered") }
        XCTAssertEqual(missing.kind, .nameNotFound)
    }

    func testHostileAnswersAreTypedErrorsAndNoneHangs() throws {
        let target = IPAddress("192.0.2.1")!
        let server = try ScriptedNameServer { id, question in
            func reply(_ answers: [DNSResourceRecord], truncated: Bool = false, question q: DNSQuestion? = nil) -> [UInt8] {
                DNSMessage(id: id, isTruncated: truncated, question: q ?? question, answers: answers).serialized()
            }
            switch question.name {
            case "loop.test":
                return reply([
                    DNSResourceRecord(name: "loop.test", ttl: 5, data: .cname("loop2.test")),
                    DNSResourceRecord(name: "loop2.test", ttl: 5, data: .cname("loop.test")),
                ])
            case "other.test":
                return reply([DNSResourceRecord(name: "evil.test", ttl: 5, data: .address(target))])
            case "cut.test":
                let whole = reply([DNSResourceRecord(name: "cut.test", ttl: 5, data: .address(target))])
                return Array(whole.prefix(whole.count - 3))
            case "big.test":
                // A message that claims 300 answers: more than a client reads.
                var bytes = reply((0..<3).map { _ in DNSResourceRecord(name: "big.test", ttl: 5, data: .address(target)) })
                bytes[6] = 0x01
                bytes[7] = 0x2C
                return bytes
            case "root.test":
                return reply([
                    DNSResourceRecord(name: "root.test", ttl: 5, data: .srv(DNSServiceRecord(priority: 0, weight: 0, port: 0, target: ".")))
                ])
            case "tc.test":
                // Truncated over UDP, and no TCP server to fetch it whole from.
                return reply([], truncated: true)
            case "silent.test":
                return nil
            case "garbage.test":
                return [UInt8](repeating: 0xFF, count: 40)
            default:
                return reply([DNSResourceRecord(name: question.name, ttl: 5, data: .address(target))])
            }
        }
        defer { server.stop() }
        let dns = try resolver(server.port)
        defer { dns.shutdown() }
        XCTAssertEqual(try outcome(dns, DNSQuestion("fine.test", .a)).get().records, [.address(target)])
        let cases: [(String, DNSRecordType, [DNSError.Kind])] = [
            ("loop.test", .a, [.aliasLoop]),
            ("other.test", .a, [.nameMismatch]),
            ("cut.test", .a, [.truncated, .malformed, .timeout]),
            ("big.test", .a, [.oversized]),
            ("root.test", .srv, [.serviceNotOffered]),
            ("tc.test", .a, [.truncated, .serverFailure, .timeout]),
            ("silent.test", .a, [.timeout]),
            ("garbage.test", .a, [.malformed, .timeout, .truncated]),
        ]
        for (name, type, kinds) in cases {
            let started = ContinuousClock.now
            guard case .failure(let error) = outcome(dns, DNSQuestion(name, type)) else {
                XCTFail("\(name): answered")
                continue
            }
            XCTAssertTrue(kinds.contains(error.kind), "\(name): \(error)")
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "\(name) must not hang")
        }
    }

    func testANameServerThatIsNotAnAddressIsRefused() {
        XCTAssertThrowsError(try DNSResolver(.init(nameServers: ["dns.example.com"])))
        XCTAssertThrowsError(try DNSResolver(.init(nameServers: ["127.0.0.1:99999"])))
        XCTAssertNoThrow(try DNSResolver(.init(nameServers: ["[::1]:53", "127.0.0.1"])).shutdown())
    }

    func testLookupsAfterShutdownFailAndInFlightOnesAreNotLost() throws {
        let server = try ScriptedNameServer { _, _ in nil }
        defer { server.stop() }
        let dns = try resolver(server.port, timeout: .seconds(30))
        let pending = dns.lookup(DNSQuestion("slow.test", .a), on: loop)
        Thread.sleep(forTimeInterval: 0.1)
        dns.shutdown()
        XCTAssertThrowsError(try pending.wait()) { XCTAssertEqual(($0 as? DNSError)?.kind, .resolverFailure) }
        XCTAssertThrowsError(try dns.lookup(DNSQuestion("late.test", .a), on: loop).wait())
    }
}
