#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

/// A destination nobody listens at fails the call at once, not after Timer B (32 s).
final class SIPUserAgentUnreachableTests: XCTestCase {
    func testARefusedTCPConnectionFailsTheCallWithinASecond() throws {
        let alice = try SIPTestAgent(user: "alice", transport: .tcp)
        defer { alice.shutdown() }
        // A port that was just free: nobody listens there.
        let probe = try RawTCPListenerPort.free()
        let started = Date()
        let call = try alice.agent.call(try SIPURI(parsing: "sip:bob@127.0.0.1:\(probe);transport=tcp")).wait()
        let reason = alice.waitForTermination(call, timeout: 5)
        let elapsed = Date().timeIntervalSince(started)
        guard case .failed? = reason else { return XCTFail("\(String(describing: reason))") }
        XCTAssertLessThan(elapsed, 1, "failed in \(elapsed) s")
    }

    func testAUDPPortNobodyListensOnFailsTheCallWithinASecond() throws {
        let alice = try SIPTestAgent(user: "alice", transport: .udp)
        defer { alice.shutdown() }
        let closed = try FreeUDPPort.find(host: "127.0.0.1")
        let started = Date()
        let call = try alice.agent.call(try SIPURI(parsing: "sip:bob@127.0.0.1:\(closed)")).wait()
        let reason = alice.waitForTermination(call, timeout: 5)
        let elapsed = Date().timeIntervalSince(started)
        guard case .failed(let failure)? = reason else { return XCTFail("\(String(describing: reason))") }
        XCTAssertEqual(failure, .transportError)
        XCTAssertLessThan(elapsed, 1, "failed in \(elapsed) s")
    }
}

/// A TCP port number nothing listens on (bound, then released).
enum RawTCPListenerPort {
    static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw XCTSkip("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
