import VoiceEmbedded
import Foundation
import VoiceTestKit
import XCTest

@testable import VoiceCore
@testable import VoiceSIP

import VoiceSupport
import VoiceMediaTypes

/// Signaling reconnection over TCP, in virtual time on the in-memory network: the connection
/// carrying a call drops, the side that opened it re-INVITEs over a new one; a re-INVITE that is
/// refused or goes unanswered ends the call with 53001.
final class CallReconnectSignalingTests: VirtualTimeTestCase {
    private var fixtures: [ReconnectTestCall] = []

    override func tearDown() {
        for fixture in fixtures { fixture.shutdown() }
        fixtures = []
        super.tearDown()
    }

    private func connectedCall(signalingReconnectTimeout: Duration = .milliseconds(10_000)) throws -> ReconnectTestCall {
        let f = try ReconnectTestCall(
            transport: .tcp,
            reconnection: CallReconnectionPolicy(
                mediaSilenceThreshold: .milliseconds(30_000), signalingReconnectTimeout: signalingReconnectTimeout))
        fixtures.append(f)
        return f
    }

    /// Whichever side closes it, the side that opened the connection (alice) reports
    /// reconnecting and re-INVITEs over a new one; the other (bob, whose inbound connection it
    /// was) loses nothing it relied on: alice's re-INVITE reaches it within its grace period, so
    /// it reports nothing.
    func testLostConnectionIsRestoredOnBothSidesWhicheverSideClosesIt() throws {
        for callerCloses in [true, false] {
            let f = try connectedCall()
            let bobEndpoint = f.bob.client.localEndpoint
            XCTAssertTrue(try f.alice.client.agent.transport.hasConnection(to: bobEndpoint).wait(), "alice opened it")
            if callerCloses {
                try f.alice.client.agent.transport.closeConnection(to: bobEndpoint).wait()
            } else {
                let aliceEphemeral = try XCTUnwrap(try onCallLoop(f.accepted) { core in
                    core.handle.flatMap { core.client.agent.callInfo($0)?.invitePeer }
                })
                XCTAssertNotEqual(aliceEphemeral, f.alice.client.localEndpoint, "not alice's listening port")
                try f.bob.client.agent.transport.closeConnection(to: aliceEphemeral).wait()
            }
            let reconnected: [SeenCallback] = [.reconnecting(.signalingConnectionDisconnected), .reconnected]
            XCTAssertEqual(f.callerDelegate.wait(for: 4), [.ringing, .connected] + reconnected, "caller closes: \(callerCloses)")
            // Past bob's grace period (2 s): still no callback.
            _ = PollingWait.until(timeout: 2.5) { f.calleeDelegate.callbacks.count > 1 }
            XCTAssertEqual(f.calleeDelegate.callbacks, [.connected], "caller closes: \(callerCloses)")
            XCTAssertEqual(f.call.state, .connected)
            XCTAssertEqual(f.accepted.state, .connected)
            XCTAssertEqual(f.alice.reconnectInsights, ["reconnecting 53001", "reconnected signaling"])
            XCTAssertEqual(f.bob.reconnectInsights, [])
            XCTAssertTrue(try f.alice.client.agent.transport.hasConnection(to: bobEndpoint).wait(), "a new connection")

            // The dialog goes on over the new connection.
            f.accepted.disconnect()
            XCTAssertEqual(f.calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
            XCTAssertEqual(f.callerDelegate.waitForEnd(), [.ringing, .connected] + reconnected + [.disconnected(nil)])
        }
    }

    func testALostConnectionConcernsOnlyTheCallsThatUseIt() throws {
        let first = try connectedCall()
        let second = try ReconnectTestCall(
            transport: .tcp, reconnection: first.alice.client.configuration.reconnection, caller: first.alice)
        defer { second.bob.client.shutdown() }
        try first.alice.client.agent.transport.closeConnection(to: first.bob.client.localEndpoint).wait()
        XCTAssertEqual(first.callerDelegate.wait(for: 4).last, .reconnected)
        // The other call's connection is still up: it may not flicker (and nothing is due from it).
        _ = PollingWait.until(timeout: 0.5) { second.callerDelegate.callbacks.count > 2 }
        XCTAssertEqual(second.callerDelegate.callbacks, [.ringing, .connected])
        XCTAssertEqual(second.calleeDelegate.callbacks, [.connected])
        XCTAssertEqual(second.call.state, .connected)
    }

    func testReINVITEToAVanishedPeerEndsTheCallWith53001() throws {
        let f = try connectedCall(signalingReconnectTimeout: .milliseconds(2_000))
        // Bob's process goes away without a BYE: his connection closes and nothing listens on his
        // port. Alice's re-INVITE is refused, or, when its connection reached the listener in the
        // moment before it closed, goes unanswered until the timeout: 53001 either way.
        try f.bob.client.agent.transport.shutdown().wait()
        XCTAssertEqual(
            f.callerDelegate.waitForEnd(),
            [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .disconnected(.signalingConnectionDisconnected)])
        XCTAssertEqual(f.call.state, .disconnected)
        XCTAssertEqual(f.alice.reconnectInsights, ["reconnecting 53001"])
        XCTAssertTrue(
            f.alice.insights.events(in: .connection).contains { $0.name == "error" && $0.payload["code"] == .int(53001) })
    }

    func testUnansweredReINVITEEndsTheCallWith53001AfterTheTimeoutAndHangsUp() throws {
        let f = try connectedCall(signalingReconnectTimeout: .milliseconds(3_000))
        // Alice's process hangs: her connection closes and her port accepts but never answers.
        let aliceEndpoint = f.alice.client.localEndpoint
        let alicePort = aliceEndpoint.port
        try f.alice.client.agent.transport.shutdown().wait()
        let hungPeer = world.sipNetwork.silentTransport()
        _ = try hungPeer.listen(.tcp, host: aliceEndpoint.host, port: alicePort).wait()
        defer { _ = hungPeer.shutdown() }
        let network = world.sipNetwork
        let received = { String(decoding: network.sent.filter { $0.destination == aliceEndpoint }.flatMap(\.bytes), as: UTF8.self) }
        XCTAssertEqual(
            f.calleeDelegate.waitForEnd(),
            [.connected, .reconnecting(.signalingConnectionDisconnected), .disconnected(.signalingConnectionDisconnected)])
        XCTAssertEqual(f.bob.reconnectInsights, ["reconnecting 53001"])
        // Bob waited for alice's re-INVITE, sent his own to her Contact, then hung up.
        _ = PollingWait.until(timeout: 5) { received().contains("\r\nBYE ") }
        let text = received()
        let alice = "sip:alice@\(aliceEndpoint.host):\(alicePort)"
        XCTAssertTrue(text.hasPrefix("INVITE \(alice)"), text)
        XCTAssertTrue(text.contains("\r\nBYE \(alice)"), text)
    }
}
