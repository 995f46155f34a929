import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceSIP
import VoiceMediaTypes

/// A TCP connection lost while requests wait for their answers on it (RFC 3261 §17.1.4, §18.4):
/// the requests fail at once instead of at timer B or F, and the call goes on.
final class SIPUserAgentConnectionLossTests: XCTestCase {
    func testRequestsPendingOnALostConnectionFailAtOnceAndTheCallGoesOn() throws {
        let peer = try SIPScriptedPeer(transport: .tcp)
        defer { peer.shutdown() }
        // The RFC 3261 timers: B and F fire after 32 s, far beyond every wait below.
        let alice = try SIPTestAgent(user: "alice", transport: .tcp) { $0.transactionConfiguration = .rfc3261 }
        defer { alice.shutdown() }
        let call = try alice.agent.call(peer.uri).wait()
        XCTAssertNotNil(alice.waitForEstablished(call), "\(alice.events)")

        peer.setAnswer { _ in .silence }
        let info = alice.agent.sendInfo(call, contentType: "application/json", body: Array("{}".utf8))
        alice.agent.hold(call)
        XCTAssertTrue(
            PollingWait.until(timeout: 10) {
                let methods = peer.requests.map(\.method)
                return methods.contains(.info) && methods.filter { $0 == .invite }.count == 2
            }, "the INFO and the re-INVITE reached the peer")
        peer.closeConnections()

        let holdFailed = alice.waitForCallEvent(call, timeout: 10) { if case .holdFailed(let code) = $0 { code } else { nil } }
        XCTAssertEqual(holdFailed, 503, "reported well before timer B")
        XCTAssertEqual(try info.wait(), 503)
        XCTAssertNotNil(alice.wait { if case .connectionLost = $0 { true } else { nil } })
        XCTAssertFalse(alice.callEvents(call).contains { if case .terminated = $0 { true } else { false } }, "the call is still up")

        // A refresh opens a new connection and asks again for the hold the lost re-INVITE carried.
        peer.setAnswer { _ in .session }
        alice.agent.refresh(call)
        let media = alice.waitForCallEvent(call) { if case .mediaUpdated(let m) = $0 { m } else { nil } }
        XCTAssertEqual(media?.direction, .sendonly)

        // A BYE lost with its connection ends the call locally at once.
        peer.setAnswer { $0.method == .bye ? .silence : .session }
        alice.agent.hangUp(call)
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.requests.contains { $0.method == .bye } })
        peer.closeConnections()
        XCTAssertEqual(alice.waitForTermination(call, timeout: 10), .localHangUp)
    }

    func testOnlyRequestsSentOverTheLostConnectionFail() throws {
        let peer = try SIPScriptedPeer(transport: .tcp)
        let other = try SIPScriptedPeer(transport: .tcp)
        defer {
            peer.shutdown()
            other.shutdown()
        }
        let alice = try SIPTestAgent(user: "alice", transport: .tcp) { $0.transactionConfiguration = .rfc3261 }
        defer { alice.shutdown() }
        let first = try alice.agent.call(peer.uri).wait()
        let second = try alice.agent.call(other.uri).wait()
        XCTAssertNotNil(alice.waitForEstablished(first))
        XCTAssertNotNil(alice.waitForEstablished(second))

        other.setAnswer { _ in .silence }
        let waiting = alice.agent.sendInfo(second, contentType: "application/json", body: Array("{}".utf8))
        let completed = Locked(false)
        waiting.whenComplete { _ in completed.withLock { $0 = true } }
        XCTAssertTrue(PollingWait.until(timeout: 10) { other.requests.contains { $0.method == .info } })
        peer.closeConnections()
        // Requests on the lost connection fail before the loss is reported, so by now any would have.
        XCTAssertNotNil(alice.wait { if case .connectionLost = $0 { true } else { nil } })
        XCTAssertFalse(completed.withLock { $0 }, "the INFO on the other connection still waits for its answer")

        // The first call is still up: its next request opens a new connection.
        XCTAssertEqual(try alice.agent.sendInfo(first, contentType: "application/json", body: Array("{}".utf8)).wait(), 200)
        XCTAssertFalse(alice.callEvents(first).contains { if case .terminated = $0 { true } else { false } })
    }
}
