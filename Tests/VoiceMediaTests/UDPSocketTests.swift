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
}
