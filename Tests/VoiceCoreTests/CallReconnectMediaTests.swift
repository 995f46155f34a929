import VoiceEmbedded
import Foundation
import VoiceTestKit
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceSupport
import VoiceMediaTypes

/// Media reconnection, in virtual time: the peer's RTP really stops (its stream sends elsewhere)
/// and resumes, or does not.
final class CallReconnectMediaTests: VirtualTimeTestCase {
    private var fixture: ReconnectTestCall?

    override func tearDown() {
        fixture?.shutdown()
        fixture = nil
        super.tearDown()
    }

    private func connectedCall(mediaReconnectTimeout: Duration = .milliseconds(20_000)) throws -> ReconnectTestCall {
        let f = try ReconnectTestCall(
            reconnection: CallReconnectionPolicy(
                mediaSilenceThreshold: .milliseconds(1_000), mediaReconnectTimeout: mediaReconnectTimeout))
        fixture = f
        return f
    }

    func testSilenceFromThePeerIsReconnectingUntilMediaResumes() throws {
        let f = try connectedCall()
        let outage = try MediaOutage(of: f.accepted)
        outage.begin()
        XCTAssertTrue(outage.hasDiverted(), "bob's RTP goes to the sink")
        XCTAssertEqual(f.callerDelegate.wait(for: 3), [.ringing, .connected, .reconnecting(.mediaConnectionError)])
        XCTAssertEqual(f.call.state, .reconnecting)
        XCTAssertEqual(f.alice.reconnectInsights, ["reconnecting 53405"])

        outage.end()
        XCTAssertEqual(
            f.callerDelegate.wait(for: 4), [.ringing, .connected, .reconnecting(.mediaConnectionError), .reconnected],
            "media after the outage: \(mediaDiagnosis(f))")
        XCTAssertEqual(f.callerDelegate.statesAtCallbacks, [.ringing, .connected, .reconnecting, .connected])
        XCTAssertEqual(f.call.state, .connected)
        XCTAssertEqual(f.alice.reconnectInsights, ["reconnecting 53405", "reconnected media"])
        XCTAssertEqual(f.calleeDelegate.callbacks, [.connected], "alice's media kept reaching bob")
        XCTAssertEqual(f.bob.reconnectInsights, [])

        f.call.disconnect()
        XCTAssertEqual(f.callerDelegate.waitForEnd().last, .disconnected(nil))
        XCTAssertEqual(f.calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
    }

    func testSilenceBeyondTheTimeoutEndsTheCallWith53405AndHangsUp() throws {
        let f = try connectedCall(mediaReconnectTimeout: .milliseconds(1_500))
        let outage = try MediaOutage(of: f.accepted)
        outage.begin()
        XCTAssertEqual(
            f.callerDelegate.waitForEnd(),
            [.ringing, .connected, .reconnecting(.mediaConnectionError), .disconnected(.mediaConnectionError)])
        XCTAssertEqual(f.call.state, .disconnected)
        XCTAssertEqual(f.calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)], "bob got alice's BYE")
        XCTAssertEqual(f.alice.reconnectInsights, ["reconnecting 53405"])
        XCTAssertTrue(
            f.alice.insights.events(in: .connection).contains { $0.name == "error" && $0.payload["code"] == .int(53405) })
        // Media that did not come back failed, then closed.
        XCTAssertEqual(f.alice.insights.events(in: .pcConnectionState).map(\.name).suffix(2), ["failed", "closed"])
        XCTAssertEqual(f.alice.insights.events(in: .iceConnectionState).map(\.name).suffix(2), ["failed", "closed"])
    }

    func testHoldOnEitherSideIsNotAMediaInterruption() throws {
        let f = try connectedCall()
        f.call.isOnHold = true
        XCTAssertTrue(waitForDirections(f, alice: .sendonly, bob: .recvonly), "the hold re-INVITE was answered")
        // Neither side sends anything while held (as a peer holding us may do).
        let fromBob = try MediaOutage(of: f.accepted), fromAlice = try MediaOutage(of: f.call)
        fromBob.begin()
        fromAlice.begin()
        XCTAssertTrue(fromBob.hasDiverted() && fromAlice.hasDiverted())
        // Three silence thresholds with nothing arriving either way.
        _ = PollingWait.until(timeout: 3.5) { f.callerDelegate.callbacks.count > 2 || f.calleeDelegate.callbacks.count > 1 }
        XCTAssertEqual(f.callerDelegate.callbacks, [.ringing, .connected], "the holder expects no media")
        XCTAssertEqual(f.calleeDelegate.callbacks, [.connected], "the held side expects no media")

        fromBob.end()
        fromAlice.end()
        f.call.isOnHold = false
        XCTAssertTrue(waitForDirections(f, alice: .sendrecv, bob: .sendrecv), "the resume re-INVITE was answered")
        XCTAssertEqual(f.call.state, .connected)
        // Off hold, silence counts again.
        let again = try MediaOutage(of: f.accepted)
        again.begin()
        XCTAssertEqual(f.callerDelegate.wait(for: 3).last, .reconnecting(.mediaConnectionError))
        again.end()
        XCTAssertEqual(f.callerDelegate.wait(for: 4).last, .reconnected)
        XCTAssertEqual(f.calleeDelegate.callbacks, [.connected])
    }

    private func waitForDirections(_ f: ReconnectTestCall, alice: SDPDirection, bob: SDPDirection) -> Bool {
        PollingWait.until(timeout: 5) {
            let a = try? onCallLoop(f.call) { $0.negotiated?.direction }
            let b = try? onCallLoop(f.accepted) { $0.negotiated?.direction }
            return a == alice && b == bob
        }
    }
}
