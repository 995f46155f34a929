import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

final class UDPSocketTests: XCTestCase {
    func testSocketAddressParsesAndRejects() throws {
        let v4 = try SocketAddress(host: "127.0.0.1", port: 5004)
        XCTAssertEqual(v4.description, "127.0.0.1:5004")
        XCTAssertFalse(v4.isIPv6)
        let v6 = try SocketAddress(host: "[::1]", port: 5006)
        XCTAssertEqual(v6.description, "[::1]:5006")
        XCTAssertTrue(v6.isIPv6)
        XCTAssertEqual(try SocketAddress(host: "127.0.0.1", port: 5004), v4)
        XCTAssertNotEqual(try SocketAddress(host: "127.0.0.1", port: 5005), v4)
        for bad in ["300.1.1.1", "example.com", "", "::g", "1.2.3"] {
            XCTAssertThrowsError(try SocketAddress(host: bad, port: 1), bad)
        }
        XCTAssertThrowsError(try SocketAddress(host: "127.0.0.1", port: 70_000))
    }

    func testSendReceiveWithKernelTimestampAndDSCP() throws {
        let a = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let b = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        XCTAssertNotEqual(a.localAddress.port, 0)
        try a.setDSCP(46)
        XCTAssertEqual(a.dscp(), 46)
        let payload: [UInt8] = [1, 2, 3, 4, 5]
        XCTAssertTrue(payload.withUnsafeBytes { a.send($0, to: b.localAddress) })
        var buffer = [UInt8](repeating: 0, count: 64)
        var stamp: timespec?
        var n: Int?
        for _ in 0..<100 where n == nil {
            n = buffer.withUnsafeMutableBytes { b.receive(into: $0, arrival: &stamp) }
            if n == nil { usleep(1_000) }
        }
        XCTAssertEqual(n, 5)
        XCTAssertEqual(Array(buffer[0..<5]), payload)
        let s = try XCTUnwrap(stamp, "SO_TIMESTAMPNS gives the kernel's receive time")
        XCTAssertGreaterThan(s.tv_sec, 1_600_000_000)
        XCTAssertNil(buffer.withUnsafeMutableBytes { b.receive(into: $0) }, "nothing else waiting, and no blocking")
    }

    func testBindingATakenPortIsATypedError() throws {
        let a = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        XCTAssertThrowsError(try UDPSocket(bindTo: a.localAddress)) { error in
            XCTAssertEqual((error as? SocketError)?.errno, EADDRINUSE)
        }
    }

    /// A socket bound to the wildcard learns which of the host's addresses each datagram came
    /// to, and answers from it: 127.0.0.2 here, though the kernel would pick 127.0.0.1 for a
    /// reply to 127.0.0.1 (an ICE response from another address fails the peer's check).
    func testAWildcardSocketSaysWhereADatagramCameAndAnswersFromThere() throws {
        let wildcard = try UDPSocket(bindTo: SocketAddress(host: "0.0.0.0", port: 0))
        let peer = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let second = try SocketAddress(host: "127.0.0.2", port: wildcard.localAddress.port)
        XCTAssertTrue([UInt8]([1, 2]).withUnsafeBytes { peer.send($0, to: second) })
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer { buffer.deallocate() }
        var source = SocketAddress.unspecified
        var received: ReceivedDatagram?
        for _ in 0..<100 where received == nil {
            received = wildcard.receive(into: buffer, from: &source, wallClockOffset: 0)
            if received == nil { usleep(1_000) }
        }
        let datagram = try XCTUnwrap(received)
        XCTAssertEqual(datagram.length, 2)
        XCTAssertEqual(source, peer.localAddress)
        let local = try XCTUnwrap(datagram.destination, "IP_PKTINFO names the address it came to")
        XCTAssertEqual(local.host, "127.0.0.2")

        func replySource(from: SocketAddress?) throws -> String {
            XCTAssertTrue([UInt8]([3]).withUnsafeBytes { wildcard.send($0, to: source, from: from) })
            var replyFrom = SocketAddress.unspecified
            var reply: ReceivedDatagram?
            for _ in 0..<100 where reply == nil {
                reply = peer.receive(into: buffer, from: &replyFrom, wallClockOffset: 0)
                if reply == nil { usleep(1_000) }
            }
            XCTAssertNotNil(reply)
            return replyFrom.host
        }
        XCTAssertEqual(try replySource(from: local), "127.0.0.2")
        XCTAssertEqual(try replySource(from: nil), "127.0.0.1", "without a source the kernel picks the route's")
    }
}
