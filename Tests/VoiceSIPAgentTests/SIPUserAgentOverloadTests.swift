import Foundation
import VoiceMedia
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// Floods that used to fill the transaction table or start unbounded calls: one source's flood
/// must not cost anybody else their calls, and a call beyond the limit is refused (503), not a new stream.
final class SIPUserAgentOverloadTests: XCTestCase {
    /// An INVITE from a caller who never ACKs or cancels: each one rings or is refused, and
    /// holds its transaction for 64·T1. Its offer can be answered (one that cannot is refused
    /// with 488 at once and never rings).
    private func badInvite(_ i: Int, port: Int, target: SIPTestAgent) -> [UInt8] {
        let sdp =
            "v=0\r\no=- 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
            + "m=audio 4000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
        let text =
            "INVITE sip:target@127.0.0.1:\(target.endpoint.port) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.2:\(port);branch=z9hG4bKflood\(i)\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:target@127.0.0.1>\r\nFrom: <sip:flood@127.0.0.2>;tag=f\(i)\r\n"
            + "Call-ID: flood\(i)@127.0.0.2\r\nCSeq: 1 INVITE\r\nContact: <sip:flood@127.0.0.2:\(port)>\r\n"
            + "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n" + sdp
        return Array(text.utf8)
    }

    func testAFloodOfUnacknowledgedINVITEsFromOneSourceLeavesOthersTheirCalls() throws {
        let target = try SIPTestAgent(user: "target", encryption: .unencrypted) {
            $0.transactionConfiguration.t1 = .milliseconds(500)  // 64·T1 = 32 s: nothing ends during the test
            $0.limits = SIPUserAgentLimits(maximumTransactions: 800, maximumServerTransactions: 600, maximumServerTransactionsPerSource: 150)
        }
        defer { target.shutdown() }
        let attacker = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        defer { attacker.close() }
        let destination = try SocketAddress(host: "127.0.0.1", port: Int(target.endpoint.port))
        var answers: [Int: Int] = [:]
        var buffer = [UInt8](repeating: 0, count: 4096)
        func drain() {
            buffer.withUnsafeMutableBytes { raw in
                while let n = attacker.receive(into: raw) {
                    let line = String(decoding: raw.prefix(min(n, 12)), as: UTF8.self)
                    if let code = Int(line.dropFirst(8).prefix(3)) { answers[code, default: 0] += 1 }
                }
            }
        }
        for i in 0..<2_000 {
            _ = badInvite(i, port: attacker.localAddress.port, target: target).withUnsafeBytes { attacker.send($0, to: destination) }
            if i % 50 == 49 {  // 2,500 a second
                Thread.sleep(forTimeInterval: 0.02)
                drain()
            }
        }
        Thread.sleep(forTimeInterval: 0.5)
        drain()
        let ringing = target.events.filter { if case .incomingCall = $0 { return true } else { return false } }
        XCTAssertEqual(ringing.count, SIPUserAgentLimits().maximumRingingCallsPerSource, "the source's share of ringing calls ring, the rest are refused")
        XCTAssertNil(answers[486], "a full server is not a busy user: \(answers)")
        XCTAssertEqual(try target.agent.eventLoop.submit { target.agent.table.serverTransactionCount(from: "127.0.0.2") }.wait(), 150)
        // How many of the 2,000 are answered at all depends on how fast this machine reads
        // them (the kernel drops the rest); beyond its share, each one read is refused.
        XCTAssertGreaterThan(answers[503] ?? 0, 100, "beyond its share of the table, refused without state: \(answers)")

        // Meanwhile a caller from another address gets through.
        let alice = try SIPTestAgent(user: "alice", host: "127.0.0.3", encryption: .unencrypted)
        defer { alice.shutdown() }
        let call = try alice.agent.call(target.uri).wait()
        let incoming = try XCTUnwrap(
            target.wait { event -> SIPCallHandle? in
                guard case .incomingCall(let handle, let invite, _, _) = event, (try? invite.headers.from().uri.user) == "alice" else { return nil }
                return handle
            }, "the INVITE from 127.0.0.3 reached the app")
        target.agent.accept(incoming)
        XCTAssertNotNil(alice.waitForEstablished(call))
        alice.agent.hangUp(call)
        _ = alice.waitForTermination(call)
    }

    func testCallsBeyondTheLimitAreRefusedWith503AndStartNoMedia() throws {
        let target = try SIPTestAgent(user: "target", encryption: .unencrypted) {
            $0.limits.maximumCalls = 3
        }
        defer { target.shutdown() }
        let alice = try SIPTestAgent(user: "alice", host: "127.0.0.3", encryption: .unencrypted)
        defer { alice.shutdown() }
        var placed: [SIPCallHandle] = []
        for _ in 0..<5 {
            placed.append(try alice.agent.call(target.uri).wait())
            Thread.sleep(forTimeInterval: 0.05)
        }
        let refused = placed.compactMap { alice.waitForTermination($0, timeout: 1) }
        XCTAssertEqual(refused, [.rejected(statusCode: 503), .rejected(statusCode: 503)], "two beyond three are refused, 503 not 486")
        let incoming = target.events.filter { if case .incomingCall = $0 { return true } else { return false } }
        XCTAssertEqual(incoming.count, 3, "the app heard of three calls only")
        for handle in placed { alice.agent.hangUp(handle) }
        for handle in placed.prefix(3) { _ = alice.waitForTermination(handle) }
        // Once they end, there is room again.
        let later = try alice.agent.call(target.uri).wait()
        XCTAssertNotNil(target.wait(timeout: 5) { event -> Bool? in
            if case .incomingCall = event, target.events.filter({ if case .incomingCall = $0 { return true } else { return false } }).count == 4 { return true }
            return nil
        })
        alice.agent.hangUp(later)
    }
}

/// A process whose media is overloaded refuses new calls with 503 and says the same to a
/// proxy's OPTIONS probe, so the proxy moves calls elsewhere; calls already up are kept.
final class SIPUserAgentMediaOverloadTests: XCTestCase {
    /// Sends an OPTIONS from 127.0.0.2 and returns the answer's text, nil after 5 s.
    private func probe(_ target: SIPTestAgent, branch: String) throws -> String? {
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        defer { socket.close() }
        let destination = try SocketAddress(host: "127.0.0.1", port: Int(target.endpoint.port))
        let text =
            "OPTIONS sip:127.0.0.1:\(target.endpoint.port) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.2:\(socket.localAddress.port);branch=\(branch)\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:127.0.0.1>\r\nFrom: <sip:probe@127.0.0.2>;tag=p\r\n"
            + "Call-ID: \(branch)@127.0.0.2\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
        return socket.exchange(text, with: destination)
    }

    func testARetransmittedInviteOfACallAdmittedBeforeTheLoadRoseIsNotRefused() throws {
        let load = Locked(0.2)
        let target = try SIPTestAgent(user: "target", encryption: .unencrypted) {
            $0.mediaLoad = { load.withLock { $0 } }
        }
        defer { target.shutdown() }
        let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.2", port: 0))
        defer { socket.close() }
        let destination = try SocketAddress(host: "127.0.0.1", port: Int(target.endpoint.port))
        let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
        let invite =
            "INVITE sip:target@127.0.0.1:\(target.endpoint.port) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.2:\(socket.localAddress.port);branch=z9hG4bKretx\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:target@127.0.0.1>\r\nFrom: <sip:caller@127.0.0.2>;tag=r\r\n"
            + "Call-ID: retx@127.0.0.2\r\nCSeq: 1 INVITE\r\nContact: <sip:caller@127.0.0.2:\(socket.localAddress.port)>\r\n"
            + "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n" + sdp
        let first = try XCTUnwrap(socket.exchange(invite, with: destination))
        XCTAssertTrue(first.hasPrefix("SIP/2.0 1"), first)
        XCTAssertNotNil(target.waitForIncomingCall(), "the call was admitted and rings")
        load.withLock { $0 = 0.99 }
        // The caller did not hear the provisional answers and sends the INVITE again: the
        // transaction answers it as before; the ringing call is not refused.
        let again = try XCTUnwrap(socket.exchange(invite, with: destination))
        XCTAssertTrue(again.hasPrefix("SIP/2.0 1"), again)
        XCTAssertFalse(again.hasPrefix("SIP/2.0 503"), again)
    }

    private func incomingCalls(_ agent: SIPTestAgent) -> [SIPCallHandle] {
        agent.events.compactMap { if case .incomingCall(let handle, _, _, _) = $0 { return handle } else { return nil } }
    }

    func testNewCallsAndProbesGet503WhileTheMediaIsOverloadedAndCallsUpAreKept() throws {
        let load = Locked(0.2)
        let target = try SIPTestAgent(user: "target", encryption: .unencrypted) {
            $0.mediaLoad = { load.withLock { $0 } }
        }
        defer { target.shutdown() }
        let alice = try SIPTestAgent(user: "alice", host: "127.0.0.3", encryption: .unencrypted)
        defer { alice.shutdown() }

        // Under the limit: the probe is answered 200 and a call rings and is answered.
        XCTAssertTrue(try probe(target, branch: "z9hG4bKok1")?.hasPrefix("SIP/2.0 200") ?? false)
        let first = try alice.agent.call(target.uri).wait()
        let (incoming, _) = try XCTUnwrap(target.waitForIncomingCall())
        target.agent.accept(incoming)
        XCTAssertNotNil(alice.waitForEstablished(first))

        // Overloaded: new calls are refused at once, with a time to come back; so are probes.
        load.withLock { $0 = 0.99 }
        let refused = try alice.agent.call(target.uri).wait()
        XCTAssertEqual(alice.waitForTermination(refused, timeout: 5), .rejected(statusCode: 503))
        let answer = try XCTUnwrap(try probe(target, branch: "z9hG4bKbusy"))
        XCTAssertTrue(answer.hasPrefix("SIP/2.0 503"), answer)
        XCTAssertTrue(answer.contains("Retry-After: \(SIPUserAgentLimits().retryAfterSeconds)"), answer)
        XCTAssertEqual(incomingCalls(target), [incoming], "the refused call never reached the app")
        XCTAssertNil(alice.waitForTermination(first, timeout: 0.5), "the call that was up stays up")

        // Load back down: calls are taken again.
        load.withLock { $0 = 0.3 }
        XCTAssertTrue(try probe(target, branch: "z9hG4bKok2")?.hasPrefix("SIP/2.0 200") ?? false)
        let later = try alice.agent.call(target.uri).wait()
        XCTAssertNotNil(target.wait { event -> SIPCallHandle? in
            if case .incomingCall(let handle, _, _, _) = event, handle != incoming { return handle }
            return nil
        }, "a new call rings again")
        alice.agent.hangUp(later)
        alice.agent.hangUp(first)
        _ = alice.waitForTermination(first)
    }
}

/// The limits' defaults fit any machine and a trunk that is not configured as trusted.
final class SIPUserAgentLimitsDefaultsTests: XCTestCase {
    func testDefaultsScaleWithTheCoresAndLeaveASourceHalfTheCalls() {
        let limits = SIPUserAgentLimits()
        XCTAssertEqual(limits.maximumCalls, 128 * ProcessInfo.processInfo.activeProcessorCount)
        XCTAssertEqual(limits.maximumRingingCallsPerSource, limits.maximumCalls / 2)
        XCTAssertEqual(SIPUserAgentLimits(maximumCalls: 10).maximumRingingCallsPerSource, 5, "half of a configured limit")
        XCTAssertEqual(SIPUserAgentLimits(maximumCalls: 10, maximumRingingCallsPerSource: 7).maximumRingingCallsPerSource, 7)
    }

    /// A burst of 20 calls at once from one untrusted address (an SBC, a trunk) all ring with
    /// the defaults; the old per-source default (16) refused four of them as busy.
    func testABurstOfTwentyCallsFromOneSourceAllRing() throws {
        let target = try SIPTestAgent(user: "target", encryption: .unencrypted)
        defer { target.shutdown() }
        let trunk = try SIPTestAgent(user: "trunk", host: "127.0.0.3", encryption: .unencrypted)
        defer { trunk.shutdown() }
        let placed = try (0..<20).map { _ in try trunk.agent.call(target.uri).wait() }
        let all = target.wait(timeout: 10) { _ -> Bool? in
            target.events.filter { if case .incomingCall = $0 { return true } else { return false } }.count == 20 ? true : nil
        }
        XCTAssertEqual(all, true, "all twenty ring")
        for handle in placed {
            XCTAssertNil(trunk.waitForTermination(handle, timeout: 0.01), "none refused")
            trunk.agent.hangUp(handle)
        }
    }
}
