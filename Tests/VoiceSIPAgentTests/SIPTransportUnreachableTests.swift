#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NIOCore
import VoiceMedia
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// ICMP errors for datagrams the UDP socket sent come back as `.unreachable` events, and the
/// socket they came on keeps working.
final class SIPTransportUnreachableTests: SIPTransportTestCase {
    private func unreachable(_ recorder: SIPTransportEventRecorder) -> [(SIPTransportEndpoint, SIPTransportError)] {
        recorder.all.compactMap { if case .unreachable(let remote, let error) = $0 { return (remote, error) } else { return nil } }
    }

    func testAPortNobodyListensOnIsReportedAndTheSocketKeepsWorking() throws {
        for host in ["127.0.0.1", "::1"] {
            let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
            let layerA = try makeLayer(a), layerB = try makeLayer(b)
            let endA = try layerA.listen(.udp, host: host, port: 0).wait()
            let endB = try layerB.listen(.udp, host: host, port: 0).wait()
            let closed = try SIPTransportEndpoint(transport: .udp, ip: host, port: try FreeUDPPort.find(host: host))

            try layerA.send(SIPTransportFixtures.options(), to: closed).wait()
            XCTAssertTrue(a.waitUntil { !self.unreachable(a).isEmpty }, "\(host): no ICMP error reported")
            let first = try XCTUnwrap(unreachable(a).first)
            XCTAssertEqual(first.0, closed, host)
            XCTAssertEqual(first.1.kind, .unreachable, host)

            // Many in a row: each is read off the error queue and the socket stays the same one.
            for _ in 0..<200 { try layerA.send(SIPTransportFixtures.options(), to: closed).wait() }
            try layerA.send(SIPTransportFixtures.options(), to: endB).wait()
            let received = b.waitForMessages(1)
            XCTAssertEqual(received.first?.1, endA, "\(host): the listening socket was not replaced")
            XCTAssertTrue(a.waitUntil { self.unreachable(a).count == 201 }, "\(host): \(unreachable(a).count) of 201 reported")
            XCTAssertEqual(try layerA.localEndpoint(.udp).wait(), endA)
            XCTAssertTrue(unreachable(b).isEmpty)
        }
    }

    /// On a dual-stack listener an IPv4 peer's ICMP error comes back too, named by its plain
    /// IPv4 address.
    func testADualStackListenerReportsAnIPv4PortNobodyListensOn() throws {
        let a = SIPTransportEventRecorder()
        let layerA = try makeLayer(a)
        _ = try layerA.listen(.udp, host: "::", port: 0).wait()
        for host in ["127.0.0.1", "::1"] {
            let closed = try SIPTransportEndpoint(transport: .udp, ip: host, port: try FreeUDPPort.find(host: host))
            let before = unreachable(a).count
            try layerA.send(SIPTransportFixtures.options(), to: closed).wait()
            XCTAssertTrue(a.waitUntil { self.unreachable(a).count > before }, "\(host): no ICMP error reported")
            XCTAssertEqual(unreachable(a).last?.0, closed, host)
        }
    }

    func testAForgedHostUnreachableIsReportedAndTheSocketKeepsWorking() throws {
        // Any host can send an ICMP "host unreachable" that quotes a datagram from our port: a
        // socket that closed on it (as NIO's datagram channel does with IP_RECVERR on) would
        // hand an off-path attacker the signaling socket.
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        let layerA = try makeLayer(a), layerB = try makeLayer(b)
        let endA = try layerA.listen(.udp, host: "127.0.0.1", port: 0).wait()
        let endB = try layerB.listen(.udp, host: "127.0.0.1", port: 0).wait()
        let victim = try XCTUnwrap(endA.address.port)
        for _ in 0..<3 { try ForgedICMP.hostUnreachable(quotingFrom: victim, to: "127.0.0.2", port: 5060) }
        XCTAssertTrue(a.waitUntil { self.unreachable(a).count == 3 }, "\(unreachable(a).count) of 3 reported")
        XCTAssertEqual(unreachable(a).first?.0, try SIPTransportEndpoint(transport: .udp, ip: "127.0.0.2", port: 5060))
        XCTAssertTrue(unreachable(a).first?.1.detail.contains("(\(EHOSTUNREACH))") ?? false, "\(unreachable(a))")

        try layerA.send(SIPTransportFixtures.options(), to: endB).wait()
        XCTAssertEqual(b.waitForMessages(1).first?.1, endA, "A's socket is the same one")
        try layerB.send(SIPTransportFixtures.options(), to: endA).wait()
        XCTAssertEqual(a.waitForMessages(1).count, 1, "A's socket still receives")
    }
}

/// Sends an ICMP "host unreachable" to 127.0.0.1 quoting a UDP datagram from `port` (needs a
/// raw socket: root or CAP_NET_RAW).
enum ForgedICMP {
    static func hostUnreachable(quotingFrom port: Int, to host: String, port destinationPort: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_RAW.rawValue), Int32(IPPROTO_ICMP))
        guard fd >= 0 else { throw unavailable("no raw socket (needs root or CAP_NET_RAW): errno \(errno)") }
        defer { close(fd) }
        var inner: [UInt8] = [0x45, 0, 0, 48, 0, 1, 0, 0, 64, 17, 0, 0, 127, 0, 0, 1]
        inner += host.split(separator: ".").compactMap { UInt8($0) }
        inner += [UInt8(port >> 8), UInt8(port & 0xFF), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xFF), 0, 28, 0, 0]
        var message: [UInt8] = [3, 1, 0, 0, 0, 0, 0, 0] + inner
        let sum = checksum(message)
        message[2] = UInt8(sum >> 8)
        message[3] = UInt8(sum & 0xFF)
        let target = try NIOCore.SocketAddress(ipAddress: "127.0.0.1", port: 0)
        let sent = message.withUnsafeBytes { raw in target.withSockAddr { sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t($1)) } }
        guard sent == message.count else { throw unavailable("raw send failed: errno \(errno)") }
    }

    /// Locally a machine without raw sockets skips the test; under CI=true (root) it fails.
    private static func unavailable(_ message: String) -> Error {
        if ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" { XCTFail(message) }
        return XCTSkip(message)
    }

    private static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        for index in stride(from: 0, to: bytes.count, by: 2) {
            sum += UInt32(bytes[index]) << 8 | UInt32(index + 1 < bytes.count ? bytes[index + 1] : 0)
        }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }
}

/// A UDP port nothing is bound to on `host` (bound, then released).
enum FreeUDPPort {
    static func find(host: String) throws -> Int {
        let socket = try UDPSocket(bindTo: try VoiceRTP.SocketAddress(host: host, port: 0))
        defer { socket.close() }
        return socket.localAddress.port
    }
}
