#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

/// RFC 4568 §8.3: SDES keys travel only over protected signaling. Over UDP to another machine
/// a call neither sends nor accepts them unless the app opts in.
final class SIPUserAgentKeyExchangeTests: XCTestCase {
    /// A local IPv4 address that is not loopback: signaling to it leaves the loopback interface.
    private func externalAddress() throws -> String {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { throw XCTSkip("no interface list") }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var addr = sin.pointee.sin_addr
                _ = inet_ntop(AF_INET, &addr, &text, socklen_t(INET_ADDRSTRLEN))
            }
            let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !host.hasPrefix("127.") { return host }
        }
        throw XCTSkip("this machine has no non-loopback IPv4 address")
    }

    func testACallOverUDPToAnotherMachineSendsNoKeysUnlessOptedIn() throws {
        let host = try externalAddress()
        let alice = try SIPTestAgent(user: "alice", host: host)
        let bob = try SIPTestAgent(user: "bob", host: host)
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        XCTAssertThrowsError(try alice.agent.call(bob.uri).wait()) { error in
            XCTAssertEqual(error as? SIPUserAgentError, .keysNeedProtectedSignaling)
        }
        XCTAssertNil(bob.waitForIncomingCall(timeout: 0.5), "nothing was sent")
    }

    func testAnINVITEWithKeysOverUDPFromAnotherMachineIsRefused() throws {
        let host = try externalAddress()
        let alice = try SIPTestAgent(user: "alice", host: host) { $0.allowsKeysOverUnencryptedSignaling = true }
        let bob = try SIPTestAgent(user: "bob", host: host)
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        let call = try alice.agent.call(bob.uri).wait()
        XCTAssertEqual(alice.waitForTermination(call), .rejected(statusCode: 488), "our key would go back in clear text")
        XCTAssertNil(bob.waitForIncomingCall(timeout: 0.2), "the app never heard of it")
    }

    func testBothSidesOptedInConnect() throws {
        let host = try externalAddress()
        let alice = try SIPTestAgent(user: "alice", host: host) { $0.allowsKeysOverUnencryptedSignaling = true }
        let bob = try SIPTestAgent(user: "bob", host: host) { $0.allowsKeysOverUnencryptedSignaling = true }
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        let call = try alice.agent.call(bob.uri).wait()
        let (incoming, _) = try XCTUnwrap(bob.waitForIncomingCall())
        bob.agent.accept(incoming)
        let media = try XCTUnwrap(alice.waitForEstablished(call))
        XCTAssertNotNil(media.localKey, "SRTP, keys exchanged")
        alice.agent.hangUp(call)
        _ = alice.waitForTermination(call)
    }

    func testTLSAndLoopbackAreProtectedPlainRTPNeedsNoKeys() throws {
        let agent = try SIPTestAgent(user: "carol")
        defer { agent.shutdown() }
        try agent.agent.eventLoop.submit {
            XCTAssertTrue(agent.agent.mayExchangeKeys(transport: .tls, host: "203.0.113.9"))
            XCTAssertTrue(agent.agent.mayExchangeKeys(transport: .udp, host: "127.0.0.5"))
            XCTAssertTrue(agent.agent.mayExchangeKeys(transport: .tcp, host: "[::1]"))
            XCTAssertFalse(agent.agent.mayExchangeKeys(transport: .udp, host: "203.0.113.9"))
            XCTAssertFalse(agent.agent.mayExchangeKeys(transport: .tcp, host: "pbx.example.com"))
            XCTAssertTrue(agent.agent.mayExchangeKeys(callingTo: try SIPURI(parsing: "sips:bob@pbx.example.com")))
            XCTAssertFalse(agent.agent.mayExchangeKeys(callingTo: try SIPURI(parsing: "sip:bob@pbx.example.com")))
        }.wait()
        let plain = try SIPTestAgent(user: "dave", encryption: .unencrypted)
        defer { plain.shutdown() }
        XCTAssertTrue(try plain.agent.eventLoop.submit { plain.agent.mayExchangeKeys(transport: .udp, host: "203.0.113.9") }.wait())
    }
}
