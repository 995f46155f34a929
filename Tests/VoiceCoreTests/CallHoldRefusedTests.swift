import VoiceEmbedded
import VoiceSIP
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// A hold or resume the peer refuses leaves the call as it was, locally too. In virtual time,
/// against a scripted peer on the in-memory network.
final class CallHoldRefusedTests: XCTestCase {
    func testAHoldThePeerRefusesLeavesTheCallOffHoldAndAResumeItRefusesLeavesItOnHold() throws {
        let net = VirtualTimeCalls()
        let peer = try SIPScriptedPeer(host: "127.0.0.3", port: 5060, network: net.network.transportFactory)
        // The scripted peer answers SDES offers (a plain SIP peer's).
        let alice = try net.client("alice", host: "127.0.0.1") { $0.mediaSecurity = .sdes }
        let delegate = RecordingCallDelegate()
        let call = net.place(from: alice, to: peer.uri.description, delegate: delegate)
        XCTAssertEqual(delegate.callbacks, [.ringing, .connected])
        let reinvites = { peer.requests.filter { $0.method == .invite }.count }

        // The re-INVITE is answered 488 at once: no time passes, the call is back off hold.
        peer.setAnswer { $0.method == .invite ? .status(488) : .session }
        call.isOnHold = true
        net.settle(delegate.queue)
        XCTAssertEqual(reinvites(), 2)
        XCTAssertFalse(call.isOnHold, "back off hold after the 488")
        XCTAssertEqual(call.state, .connected)
        XCTAssertEqual(net.elapsedMilliseconds, 0)

        peer.setAnswer { _ in .session }
        call.isOnHold = true
        net.settle(delegate.queue)
        XCTAssertEqual(reinvites(), 3)
        XCTAssertTrue(call.isOnHold)

        peer.setAnswer { $0.method == .invite ? .status(488) : .session }
        call.isOnHold = false
        net.settle(delegate.queue)
        XCTAssertEqual(reinvites(), 4)
        XCTAssertTrue(call.isOnHold, "still on hold after the refused resume")
        XCTAssertEqual(call.state, .connected)
        call.disconnect()
        net.settle(delegate.queue)
        XCTAssertEqual(delegate.callbacks, [.ringing, .connected, .disconnected(nil)])
    }
}
