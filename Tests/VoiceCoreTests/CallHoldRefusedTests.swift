import Foundation
import VoiceMedia
import VoiceSIP
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceMediaTypes

/// A hold or resume the peer refuses leaves the call as it was, locally too.
final class CallHoldRefusedTests: XCTestCase {
    func testAHoldThePeerRefusesLeavesTheCallOffHoldAndAResumeItRefusesLeavesItOnHold() throws {
        let peer = try SIPScriptedPeer()
        let alice = try TestVoiceClient("alice") {
            $0.reconnection = CallReconnectionPolicy(mediaSilenceThreshold: .seconds(120))
        }
        defer {
            alice.client.shutdown()
            peer.shutdown()
        }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: peer.uri.description, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        let reinvites = { peer.requests.filter { $0.method == .invite }.count }

        peer.setAnswer { $0.method == .invite ? .status(488) : .session }
        call.isOnHold = true
        XCTAssertTrue(PollingWait.until(timeout: 5) { reinvites() == 2 && !call.isOnHold }, "back off hold after the 488")
        XCTAssertEqual(call.state, .connected)

        peer.setAnswer { _ in .session }
        call.isOnHold = true
        XCTAssertTrue(PollingWait.until(timeout: 5) { reinvites() == 3 })
        peer.setAnswer { $0.method == .invite ? .status(488) : .session }
        call.isOnHold = false
        XCTAssertTrue(PollingWait.until(timeout: 5) { reinvites() == 4 })
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.isOnHold }, "still on hold after the refused resume")
        XCTAssertEqual(call.state, .connected)
        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
    }
}
