import Foundation
import Logging
import NIOCore
import NIOEmbedded
import VoiceAddress
import VoiceDNS
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceSupport
import VoiceMediaTypes

/// DNS answered from memory, on the loop: a zone of records, NXDOMAIN for anything else; every
/// question asked is recorded.
final class MemoryDNS: DNSLookup, @unchecked Sendable {
    // @unchecked: used on the embedded loop only.
    var zone: [DNSQuestion: [DNSRecordData]] = [:]
    var asked: [DNSQuestion] = []

    func lookup(_ question: DNSQuestion, on eventLoop: EventLoop) -> EventLoopFuture<DNSAnswer> {
        asked.append(question)
        guard let records = zone[question] else {
            return eventLoop.makeFailedFuture(DNSError(.nameNotFound, "\(question)", negativeTTL: 30))
        }
        return eventLoop.makeSucceededFuture(DNSAnswer(question: question, records: records, ttl: 60))
    }

    func hostsFileAddresses(_ name: String, on eventLoop: EventLoop) -> EventLoopFuture<[DNSRecordData]> {
        eventLoop.makeSucceededFuture([])
    }

    /// `_sip._<transport>.<domain>` at `servers` (host, port, priority), each host at 127.0.0.x.
    func publish(_ service: String, _ servers: [(host: String, address: String, port: UInt16, priority: UInt16)]) {
        zone[DNSQuestion(service, .srv)] = servers.map {
            .srv(DNSServiceRecord(priority: $0.priority, weight: 0, port: $0.port, target: $0.host))
        }
        for server in servers { zone[DNSQuestion(server.host, .a)] = [.address(IPAddress(server.address)!)] }
    }
}

/// Failover in virtual time: user agents on the in-memory network, DNS from memory. A silent
/// server is left after the failover timeout, a 503 moves a call on at once (and the CANCEL
/// follows it), a refused connection too, fallback proxies follow the outbound proxy, and a
/// name with no records fails at once.
final class SIPServerFailoverVirtualTests: EmbeddedSIPTestCase {
    private let dns = MemoryDNS()

    private func agent(
        _ user: String, host: String, transport: SIPTransportProtocol = .udp, configure: (inout SIPUserAgentConfiguration) -> Void = { _ in }
    ) throws -> (SIPUserAgent, Locked<[(MediaTime, SIPUserAgentEvent)]>) {
        try memoryAgent(user, host: host, dns: dns, transport: transport, configure: configure)
    }

    private func incoming(_ events: Locked<[(MediaTime, SIPUserAgentEvent)]>) -> (MediaTime, SIPCallHandle)? {
        for (time, event) in events.withLock({ $0 }) {
            if case .incomingCall(let handle, _, _, _) = event { return (time, handle) }
        }
        return nil
    }

    private func termination(_ events: Locked<[(MediaTime, SIPUserAgentEvent)]>) -> (MediaTime, SIPSessionEndReason)? {
        for (time, event) in events.withLock({ $0 }) {
            if case .call(_, .terminated(let reason)) = event { return (time, reason) }
        }
        return nil
    }

    private func established(_ events: Locked<[(MediaTime, SIPUserAgentEvent)]>) -> Bool {
        events.withLock { $0 }.contains { if case .call(_, .established) = $0.1 { true } else { false } }
    }

    /// The requests of `method` sent to `address`, as (milliseconds since `start`, branch).
    private func sent(_ method: SIPMethod, to address: String, since start: NIODeadline) -> [(Int64, String)] {
        network.sent.compactMap { datagram in
            guard datagram.destination.host == address, case .request(let request)? = datagram.message, request.method == method else { return nil }
            return ((datagram.time - start).nanoseconds / 1_000_000, (try? request.headers.topVia().branch) ?? nil ?? "")
        }
    }

    func testASilentServerIsLeftAfterTheFailoverTimeoutAndTheCallStaysWithTheOneThatAnswered() throws {
        dns.publish("_sip._udp.example.test", [("pbx1.example.test", "127.0.0.2", 5060, 10), ("pbx2.example.test", "127.0.0.3", 5060, 20)])
        let (alice, aliceEvents) = try agent("alice", host: "127.0.0.1")
        let (bob, bobEvents) = try agent("bob", host: "127.0.0.3")
        let start = loop.now
        let outgoing = try value(alice.call(SIPURI(user: "bob", host: "example.test")))
        loop.advanceTime(by: .milliseconds(3_999))
        XCTAssertNil(incoming(bobEvents))
        loop.advanceTime(by: .milliseconds(1))
        let (time, call) = try XCTUnwrap(incoming(bobEvents), "the INVITE moved to the second server at 4 s")
        XCTAssertEqual(time, MediaTime(nanoseconds: Int64(start.uptimeNanoseconds)) + .seconds(4))
        let first = sent(.invite, to: "127.0.0.2", since: start)
        XCTAssertEqual(first.map(\.0), [0, 500, 1_500, 3_500], "Timer A's sends, then no more: the old transaction ended")
        let second = sent(.invite, to: "127.0.0.3", since: start)
        XCTAssertEqual(second.map(\.0), [4_000])
        XCTAssertNotEqual(first.first?.1, second.first?.1, "a new transaction, a new branch (RFC 3263 §4.3)")
        bob.accept(call)
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertTrue(established(aliceEvents))
        XCTAssertTrue(established(bobEvents), "the ACK went to the server that answered")
        loop.advanceTime(by: .seconds(40))
        XCTAssertEqual(sent(.invite, to: "127.0.0.2", since: start).count, 4)
        alice.hangUp(outgoing)
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertEqual(termination(bobEvents)?.1, .remoteHangUp)
        // The next request to the domain goes to the server that answered, not the silent one.
        let before = sent(.invite, to: "127.0.0.2", since: start).count
        _ = try value(alice.call(SIPURI(user: "bob", host: "example.test")))
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertEqual(sent(.invite, to: "127.0.0.2", since: start).count, before)
        XCTAssertEqual(sent(.invite, to: "127.0.0.3", since: start).count, 2)
    }

    func testA503MovesTheCallOnAtOnceAndTheCancelFollowsIt() throws {
        dns.publish("_sip._udp.example.test", [("busy.example.test", "127.0.0.2", 5060, 10), ("pbx2.example.test", "127.0.0.3", 5060, 20)])
        let (alice, aliceEvents) = try agent("alice", host: "127.0.0.1")
        let (busy, busyEvents) = try agent("busy", host: "127.0.0.2") {
            $0.mediaLoad = { 1.0 }
            $0.limits.maximumMediaLoad = 0.9
        }
        let (bob, bobEvents) = try agent("bob", host: "127.0.0.3")
        let start = loop.now
        let outgoing = try value(alice.call(SIPURI(user: "bob", host: "example.test")))
        loop.run()
        withExtendedLifetime(busy) {}
        XCTAssertNil(incoming(busyEvents), "the overloaded server refused with 503")
        let (time, call) = try XCTUnwrap(incoming(bobEvents), "the INVITE moved on after the 503")
        XCTAssertEqual(time, MediaTime(nanoseconds: Int64(start.uptimeNanoseconds)), "at once, not after a timeout")
        bob.ring(call)
        loop.advanceTime(by: .milliseconds(10))
        alice.hangUp(outgoing)
        loop.advanceTime(by: .milliseconds(10))
        let invite = try XCTUnwrap(sent(.invite, to: "127.0.0.3", since: start).first)
        let cancel = try XCTUnwrap(sent(.cancel, to: "127.0.0.3", since: start).first, "the CANCEL went where the INVITE now is")
        XCTAssertEqual(cancel.1, invite.1, "with the branch the INVITE has there")
        XCTAssertEqual(termination(bobEvents)?.1, .cancelledByRemote)
        XCTAssertEqual(termination(aliceEvents)?.1, .cancelledByLocal)
    }

    func testARefusedConnectionMovesOnAtOnce() throws {
        dns.publish("_sip._tcp.example.test", [("down.example.test", "127.0.0.2", 5060, 10), ("pbx2.example.test", "127.0.0.3", 5060, 20)])
        let (alice, _) = try agent("alice", host: "127.0.0.1", transport: .tcp)
        let listener = network.silentTransport()
        _ = try value(listener.listen(.tcp, host: "127.0.0.3", port: 5060))
        let start = loop.now
        var uri = SIPURI(user: "bob", host: "example.test")
        uri.parameters.set("transport", "tcp")
        _ = try value(alice.call(uri))
        loop.run()
        // Nobody listens at the first server: the connection is refused and the INVITE goes to
        // the second at once, over a connection of its own.
        XCTAssertEqual(sent(.invite, to: "127.0.0.3", since: start).map(\.0), [0])
        XCTAssertEqual(dns.asked.first, DNSQuestion("_sip._tcp.example.test", .srv), "transport=tcp: its SRV name, no NAPTR")
    }

    func testFallbackProxiesAreTriedInOrderAfterTheOutboundProxy() throws {
        let (alice, aliceEvents) = try agent("alice", host: "127.0.0.1") { configuration in
            configuration.outboundProxy = SIPURI(host: "127.0.0.2")
            configuration.fallbackProxies = [SIPURI(host: "127.0.0.4"), SIPURI(host: "127.0.0.3")]
            configuration.failoverTimeout = .seconds(2)
        }
        let (bob, bobEvents) = try agent("bob", host: "127.0.0.3")
        let start = loop.now
        _ = try value(alice.call(SIPURI(user: "bob", host: "127.0.0.3")))
        loop.advanceTime(by: .seconds(4))
        let (time, call) = try XCTUnwrap(incoming(bobEvents), "the second fallback proxy got the INVITE")
        XCTAssertEqual(time, MediaTime(nanoseconds: Int64(start.uptimeNanoseconds)) + .seconds(4))
        XCTAssertEqual(sent(.invite, to: "127.0.0.2", since: start).first?.0, 0)
        XCTAssertEqual(sent(.invite, to: "127.0.0.4", since: start).first?.0, 2_000)
        bob.accept(call)
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertTrue(established(aliceEvents))
        XCTAssertTrue(established(bobEvents), "the ACK followed the fallback proxy that answered, not the outbound proxy")
    }

    func testANameWithNoRecordsFailsAtOnceWithADNSError() throws {
        let (alice, aliceEvents) = try agent("alice", host: "127.0.0.1")
        let start = loop.now
        _ = try value(alice.call(SIPURI(user: "bob", host: "nowhere.example.test")))
        loop.run()
        let (time, reason) = try XCTUnwrap(termination(aliceEvents))
        XCTAssertEqual(reason, .failed(.dnsResolutionFailure))
        XCTAssertEqual(time, MediaTime(nanoseconds: Int64(start.uptimeNanoseconds)))
        XCTAssertEqual(SIPErrorMapping.failureCode(for: .dnsResolutionFailure).code, 31530)
        XCTAssertEqual(dns.asked.map(\.type), [.naptr, .srv, .srv, .srv, .a])
        XCTAssertTrue(network.sent.isEmpty, "nothing was sent")
    }
}

