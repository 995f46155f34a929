import VoiceEmbedded
import Foundation
import NIOCore
import VoiceSIP
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// A signaling path that dies silently, over UDP, seen through the public API in virtual time:
/// the first hop stops answering the OPTIONS keep-alives, the call goes reconnecting (53001) at
/// the keep-alive timeout, and comes back when the hop answers again, or ends at the signaling
/// reconnection timeout.
final class CallKeepAliveVirtualTimeTests: XCTestCase {
    /// alice sends everything through bob's address as her outbound proxy (bob answers OPTIONS
    /// like a proxy does) and calls him; both sides' media flows throughout.
    private func callThroughAHop(_ net: VirtualTimeCalls) throws -> (call: Call, alice: RecordingCallDelegate, bob: RecordingCallDelegate) {
        let proxy = try SIPServerAddress("sip:127.0.0.2:5060")
        let alice = try net.client("alice", host: "127.0.0.1") { $0.outboundProxy = proxy }
        let (_, notifications) = try net.listener("bob", host: "127.0.0.2")
        let aliceDelegate = RecordingCallDelegate()
        let call = net.place(from: alice, to: "sip:bob@127.0.0.2:5060", delegate: aliceDelegate)
        net.settle(notifications.queue)
        let invite = try XCTUnwrap(notifications.invites.withLock { $0.first }, "bob was invited")
        let bobDelegate = RecordingCallDelegate()
        _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
        net.settle(aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        try XCTUnwrap(net.latestMedia(of: "alice")).receiving = true
        try XCTUnwrap(net.latestMedia(of: "bob")).receiving = true
        return (call, aliceDelegate, bobDelegate)
    }

    private static func isBetweenAliceAndBob(_ datagram: SIPMemoryNetwork.Datagram) -> Bool {
        Set([datagram.source.host, datagram.destination.host]) == ["127.0.0.1", "127.0.0.2"]
    }

    func testASilentHopMakesTheCallReconnectingAtTheTimeoutAndItsAnswerReconnectsIt() throws {
        let net = VirtualTimeCalls()
        let (call, alice, bob) = try callThroughAHop(net)
        net.advance(14_000, settling: alice.queue)
        XCTAssertEqual(net.sendTimes(of: .options), [], "the first keep-alive goes one interval in")
        // At 14 s the path dies silently both ways (a router gone, a NAT binding dropped).
        net.network.drops = Self.isBetweenAliceAndBob
        net.advance(1_000, settling: alice.queue)
        XCTAssertEqual(net.sendTimes(of: .options).first, 15_000)
        // The 15 s keep-alive goes unanswered for 10 s: at 25 s, and not a millisecond before,
        // the call is reconnecting with 53001, 11 s after the path died.
        net.advance(9_999, settling: alice.queue)
        XCTAssertEqual(alice.callbacks, [.ringing, .connected])
        net.advance(1, settling: alice.queue)
        XCTAssertEqual(alice.callbacks, [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected)])
        XCTAssertEqual(call.state, .reconnecting)
        XCTAssertEqual(net.sendTimes(of: .invite).count, 1, "no re-INVITE into a dead path")
        // The path comes back at 27 s; the keep-alives go every 2 s from 30 s while the hop is
        // silent: the one at 30 s is answered, and the call re-INVITEs and reconnects at once.
        net.advance(2_000, settling: alice.queue)
        net.network.drops = nil
        net.advance(2_999, settling: alice.queue)
        XCTAssertEqual(call.state, .reconnecting)
        net.advance(1, settling: alice.queue, bob.queue)
        XCTAssertEqual(alice.callbacks, [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .reconnected])
        XCTAssertEqual(call.state, .connected)
        XCTAssertEqual(net.sendTimes(of: .invite).last, 30_000, "the re-INVITE went when the hop answered")
        XCTAssertEqual(bob.callbacks, [.connected], "bob's side saw no break: its media flowed")
        let connection = net.insights["alice"]?.events(in: .connection).map(\.name) ?? []
        XCTAssertEqual(connection.filter { $0.hasPrefix("reconnect") }, ["reconnecting", "reconnected"])
    }

    func testAHopThatNeverAnswersAgainEndsTheCallAtTheSignalingTimeout() throws {
        let net = VirtualTimeCalls()
        let (call, alice, _) = try callThroughAHop(net)
        net.network.drops = Self.isBetweenAliceAndBob
        net.advance(25_000, settling: alice.queue)
        XCTAssertEqual(alice.callbacks, [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected)])
        net.advance(29_999, settling: alice.queue)
        XCTAssertEqual(call.state, .reconnecting)
        net.advance(1, settling: alice.queue)
        XCTAssertEqual(
            alice.callbacks,
            [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .disconnected(.signalingConnectionDisconnected)])
        // Keep-alives went every 2 s once the hop was silent, to see it come back (each
        // retransmitted on Timer E like any request over UDP).
        XCTAssertEqual(Array(net.transactionStartTimes(of: .options).prefix(4)), [15_000, 30_000, 32_000, 34_000])
    }

    func testAnAnsweringHopIsPingedEveryFifteenSecondsAndNothingHappens() throws {
        let net = VirtualTimeCalls()
        let (call, alice, _) = try callThroughAHop(net)
        net.advance(61_000, settling: alice.queue)
        XCTAssertEqual(net.sendTimes(of: .options), [15_000, 30_000, 45_000, 60_000])
        XCTAssertEqual(net.sendTimes(ofStatus: 200).filter { $0 % 15_000 == 0 && $0 > 0 }.count, 4, "each answered at once")
        XCTAssertEqual(alice.callbacks, [.ringing, .connected])
        XCTAssertEqual(call.state, .connected)
    }
}
