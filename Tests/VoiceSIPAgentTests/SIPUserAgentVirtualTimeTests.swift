import NIOCore
import NIOEmbedded
import VoiceMedia
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceSupport
import VoiceMediaTypes

/// User agents on an in-memory network and an `EmbeddedEventLoop`: no sockets and no real time.
/// The RFC 3261 timers run at their real values (T1 = 500 ms) and the tests assert exact times,
/// in milliseconds of wall-clock time.
final class SIPUserAgentVirtualTimeTests: EmbeddedSIPTestCase {
    /// An agent listening at `host`:5060 on the memory network, its events recorded with the time.
    private func agent(
        _ user: String, host: String, configure: (inout SIPUserAgentConfiguration) -> Void = { _ in }
    ) throws -> (SIPUserAgent, Locked<[(MediaTime, SIPUserAgentEvent)]>) {
        let events = Locked<[(MediaTime, SIPUserAgentEvent)]>([])
        var configuration = SIPUserAgentConfiguration(
            identity: SIPNameAddress(uri: SIPURI(user: user, host: host)), listenHost: host, listenPort: 5060,
            media: SDPLocalCapabilities(address: host, port: 0, encryption: .required))
        configure(&configuration)
        let clock = EventLoopMediaClock(loop: loop)
        let ports = Locked(30_000)
        let agent = try SIPUserAgent(
            configuration: configuration, transport: network.transportFactory,
            mediaPorts: { loop in loop.makeSucceededFuture(UInt16(ports.withLock { $0 += 2; return $0 })) }
        ) { event in events.withLock { $0.append((clock.now(), event)) } }
        XCTAssertEqual(try value(agent.start()).port, 5060)
        return (agent, events)
    }

    private func termination(_ events: Locked<[(MediaTime, SIPUserAgentEvent)]>) -> (MediaTime, SIPSessionEndReason)? {
        for (time, event) in events.withLock({ $0 }) {
            if case .call(_, .terminated(let reason)) = event { return (time, reason) }
        }
        return nil
    }

    func testAnUnansweredINVITEIsResentOnTimerAAndFailsOnTimerBAtSixtyFourT1() throws {
        let (alice, events) = try agent("alice", host: "127.0.0.1")
        let start = loop.now
        _ = try value(alice.call(SIPURI(user: "nobody", host: "127.0.0.2")))
        loop.advanceTime(by: .seconds(31))
        XCTAssertNil(termination(events), "Timer B has not fired yet")
        loop.advanceTime(by: .seconds(2))
        let invites = network.sent.filter { $0.message.map { if case .request(let r) = $0 { r.method == .invite } else { false } } ?? false }
        // Timer A: the INVITE at 0, then T1, 2·T1, 4·T1 … apart (RFC 3261 §17.1.1.2).
        XCTAssertEqual(invites.map { ($0.time - start).nanoseconds / 1_000_000 }, [0, 500, 1_500, 3_500, 7_500, 15_500, 31_500])
        let (time, reason) = try XCTUnwrap(termination(events))
        XCTAssertEqual(reason, .failed(.transactionTimeout))
        XCTAssertEqual(time - MediaTime(nanoseconds: Int64(start.uptimeNanoseconds)), .milliseconds(32_000), "Timer B = 64·T1")
    }

    func testACallIsSetUpAndEndedWithoutRealTime() throws {
        let (alice, aliceEvents) = try agent("alice", host: "127.0.0.1")
        let (bob, bobEvents) = try agent("bob", host: "127.0.0.2")
        let outgoing = try value(alice.call(SIPURI(user: "bob", host: "127.0.0.2")))
        loop.run()
        let incoming = try XCTUnwrap(bobEvents.withLock { $0 }.lazy.compactMap { event -> SIPCallHandle? in
            if case .incomingCall(let handle, _, let port, _) = event.1 {
                XCTAssertEqual(port, 30_002)
                return handle
            }
            return nil
        }.first)
        bob.ring(incoming)
        loop.advanceTime(by: .milliseconds(10))
        bob.accept(incoming)
        loop.advanceTime(by: .milliseconds(10))
        func established(_ events: Locked<[(MediaTime, SIPUserAgentEvent)]>) -> SDPNegotiatedMedia? {
            for (_, event) in events.withLock({ $0 }) {
                if case .call(_, .established(let media)) = event { return media }
            }
            return nil
        }
        let aliceMedia = try XCTUnwrap(established(aliceEvents), "the 200 reached alice")
        let bobMedia = try XCTUnwrap(established(bobEvents), "the ACK reached bob")
        XCTAssertEqual(aliceMedia.remoteRTP.port, 30_002)
        XCTAssertEqual(bobMedia.remoteRTP.port, 30_002, "both agents drew from the same test port counter")
        XCTAssertEqual(aliceMedia.localKey, bobMedia.remoteKey, "SDES keys crossed")
        alice.hangUp(outgoing)
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertEqual(termination(bobEvents)?.1, .remoteHangUp)
        XCTAssertEqual(termination(aliceEvents)?.1, .localHangUp)
        // No message was retransmitted: every request got its answer within T1.
        let methods = network.sent.compactMap { datagram -> String? in
            guard case .request(let request)? = datagram.message else { return nil }
            return request.method.rawValue
        }
        XCTAssertEqual(methods, ["INVITE", "ACK", "BYE"])
    }

    /// The agent's nonces age on its clock: an answer to a challenge 31 s old (virtual) is
    /// stale, so the caller is challenged again with `stale=true` rather than let in or refused.
    func testANonceAgesOnTheAgentsClock() throws {
        let alice = SIPAuthCredentials(username: "alice", password: "s3cret")
        let (caller, _) = try agent("alice", host: "127.0.0.1") { $0.credentials = [alice] }
        let (callee, _) = try agent("bob", host: "127.0.0.2") {
            $0.incomingCallPolicy = SIPIncomingCallPolicy(requiredCredentials: [alice], realm: "office")
        }
        // Alice's answers to the challenge are lost for 31 s; her retransmission at 31.5 s gets through.
        let start = loop.now
        network.drops = { [loop] datagram in
            guard case .request(let request)? = datagram.message, request.headers.first("Authorization") != nil else { return false }
            return loop!.now - start < .seconds(31)
        }
        _ = try value(caller.call(SIPURI(user: "bob", host: "127.0.0.2")))
        loop.advanceTime(by: .seconds(33))
        let challenges = network.sent.compactMap { datagram -> (NIODeadline, SIPResponse)? in
            guard case .response(let response)? = datagram.message, response.statusCode == 401 else { return nil }
            return (datagram.time, response)
        }
        let summary = network.sent.map { d in String(decoding: d.bytes.prefix(30), as: UTF8.self) }
        guard challenges.count >= 2 else { return XCTFail("challenges: \(challenges.count); sent: \(summary)") }
        XCTAssertFalse(challenges[0].1.headers.first("WWW-Authenticate")?.contains("stale=true") ?? true, "the first challenge")
        let late = try XCTUnwrap(challenges.dropFirst().first)
        XCTAssertEqual(late.0 - start, .milliseconds(31_500), "the answer that got through, at 31.5 s")
        XCTAssertTrue(late.1.headers.first("WWW-Authenticate")?.contains("stale=true") ?? false, "\(late.1.headers)")
        withExtendedLifetime(callee) {}
    }
}
