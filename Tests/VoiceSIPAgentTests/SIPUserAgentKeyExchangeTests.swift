import NIOCore
import NIOEmbedded
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// RFC 4568 §8.3: SDES keys travel only over protected signaling. Over UDP to another machine
/// a call neither sends nor accepts them unless the app opts in. Agents at 10.0.0.1 and
/// 10.0.0.2 (not loopback) on the in-memory network and an `EmbeddedEventLoop`: the subject is
/// the policy, and "nothing was sent" is read off the network, not waited for.
final class SIPUserAgentKeyExchangeTests: EmbeddedSIPTestCase {
    private func agent(
        _ user: String, host: String, encryption: SDPEncryptionPolicy = .required,
        configure: (inout SIPUserAgentConfiguration) -> Void = { _ in }
    ) throws -> (SIPUserAgent, Locked<[SIPUserAgentEvent]>) {
        let events = Locked<[SIPUserAgentEvent]>([])
        var configuration = SIPUserAgentConfiguration(
            identity: SIPNameAddress(uri: SIPURI(user: user, host: host)), listenHost: host, listenPort: 5060,
            media: SDPLocalCapabilities(address: host, port: 0, encryption: encryption))
        configure(&configuration)
        let agent = try SIPUserAgent(
            configuration: configuration, transport: network.transportFactory,
            mediaPorts: { loop in loop.makeSucceededFuture(UInt16(30_000)) }
        ) { event in events.withLock { $0.append(event) } }
        _ = try value(agent.start())
        return (agent, events)
    }

    private func incomingCall(_ events: Locked<[SIPUserAgentEvent]>) -> SIPCallHandle? {
        events.withLock { $0.lazy.compactMap { if case .incomingCall(let handle, _, _, _) = $0 { handle } else { nil } }.first }
    }

    private func termination(_ events: Locked<[SIPUserAgentEvent]>) -> SIPSessionEndReason? {
        events.withLock { $0.lazy.compactMap { if case .call(_, .terminated(let reason)) = $0 { reason } else { nil } }.first }
    }

    private var invitesSent: Int {
        network.sent.filter { if case .request(let request)? = $0.message { request.method == .invite } else { false } }.count
    }

    func testACallOverUDPToAnotherMachineSendsNoKeysUnlessOptedIn() throws {
        let (alice, _) = try agent("alice", host: "10.0.0.1")
        let (bob, bobEvents) = try agent("bob", host: "10.0.0.2")
        defer { withExtendedLifetime(bob) {} }
        XCTAssertThrowsError(try value(alice.call(SIPURI(user: "bob", host: "10.0.0.2")))) { error in
            XCTAssertEqual(error as? SIPUserAgentError, .keysNeedProtectedSignaling)
        }
        loop.advanceTime(by: .seconds(1))
        XCTAssertEqual(invitesSent, 0, "nothing was sent")
        XCTAssertNil(incomingCall(bobEvents))
    }

    func testAnINVITEWithKeysOverUDPFromAnotherMachineIsRefused() throws {
        let (alice, aliceEvents) = try agent("alice", host: "10.0.0.1") { $0.allowsKeysOverUnencryptedSignaling = true }
        let (bob, bobEvents) = try agent("bob", host: "10.0.0.2")
        defer { withExtendedLifetime(bob) {} }
        _ = try value(alice.call(SIPURI(user: "bob", host: "10.0.0.2")))
        loop.advanceTime(by: .milliseconds(100))
        XCTAssertEqual(invitesSent, 1, "alice opted in and sent her key")
        XCTAssertEqual(termination(aliceEvents), .rejected(statusCode: 488), "our key would go back in clear text")
        XCTAssertNil(incomingCall(bobEvents), "the app never heard of it")
    }

    func testBothSidesOptedInConnect() throws {
        let (alice, aliceEvents) = try agent("alice", host: "10.0.0.1") { $0.allowsKeysOverUnencryptedSignaling = true }
        let (bob, bobEvents) = try agent("bob", host: "10.0.0.2") { $0.allowsKeysOverUnencryptedSignaling = true }
        let call = try value(alice.call(SIPURI(user: "bob", host: "10.0.0.2")))
        loop.run()
        bob.accept(try XCTUnwrap(incomingCall(bobEvents)))
        loop.advanceTime(by: .milliseconds(10))
        let media = try XCTUnwrap(
            aliceEvents.withLock { $0.lazy.compactMap { if case .call(_, .established(let media)) = $0 { media } else { nil } }.first })
        XCTAssertNotNil(media.localKey, "SRTP, keys exchanged")
        alice.hangUp(call)
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertEqual(termination(aliceEvents), .localHangUp)
    }

    func testTLSAndLoopbackAreProtectedPlainRTPNeedsNoKeys() throws {
        let (agent, _) = try agent("carol", host: "10.0.0.3")
        XCTAssertTrue(agent.mayExchangeKeys(transport: .tls, host: "203.0.113.9"))
        XCTAssertTrue(agent.mayExchangeKeys(transport: .udp, host: "127.0.0.5"))
        XCTAssertTrue(agent.mayExchangeKeys(transport: .tcp, host: "[::1]"))
        XCTAssertFalse(agent.mayExchangeKeys(transport: .udp, host: "203.0.113.9"))
        XCTAssertFalse(agent.mayExchangeKeys(transport: .tcp, host: "pbx.example.com"))
        XCTAssertTrue(agent.mayExchangeKeys(callingTo: try SIPURI(parsing: "sips:bob@pbx.example.com")))
        XCTAssertFalse(agent.mayExchangeKeys(callingTo: try SIPURI(parsing: "sip:bob@pbx.example.com")))
        let (plain, _) = try self.agent("dave", host: "10.0.0.4", encryption: .unencrypted)
        XCTAssertTrue(plain.mayExchangeKeys(transport: .udp, host: "203.0.113.9"))
    }
}
