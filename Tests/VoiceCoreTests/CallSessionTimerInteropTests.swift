import VoiceEmbedded
import Foundation
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// RFC 4028 session timers with pjsip (pjsua2) requiring them, calling and called: no 420, the
/// interval and refresher agreed, and a refresh (UPDATE) that pjsip answers while the call
/// stays up. The rest (422, expiry, re-INVITE refreshes, either refresher) is on the session's
/// virtual clock in `SIPSessionTimerTests`.
final class CallSessionTimerInteropTests: XCTestCase {
    private func client(_ name: String, sessionExpires: Int = 1_800) throws -> TestVoiceClient {
        try TestVoiceClient(name) { configuration in
            configuration.mediaSecurity = .sdes  // pjsua2 as installed keys with SDES
            configuration.sessionExpires = sessionExpires
        }
    }

    /// We call a pjsua2 that requires timers at 90 s: its 2xx makes us the refresher, and our
    /// UPDATE at half the interval (45 s) gets its 200 while the call stays up.
    func testWeRefreshAPJSUAThatRequiresTimers() throws {
        try TestPrerequisites.pjsua2()
        let port = try SIPPeerProcess.freePort()
        let peer = try PJSUAPeer(PJSUAPeer.Options(port: port, exitAfter: 80, sessionTimer: "required", sessionExpires: 90))
        defer { peer.stop() }
        // pjsua2 keeps the interval the caller asks for: 90 s, so the refresh comes at 45 s.
        let alice = try client("alice", sessionExpires: 90)
        defer { alice.client.shutdown() }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "sip:pj@127.0.0.1:\(port)", delegate: delegate)
        defer { call.disconnect() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks); pjsua2:\n\(peer.logTail)")
        XCTAssertTrue(peer.waitForLine("TSX UPDATE received 200", timeout: 55), "no refresh reached pjsua2:\n\(peer.logTail)")
        XCTAssertEqual(call.state, .connected)
        XCTAssertFalse(peer.lines.contains { $0.hasPrefix("DISCONNECTED") }, peer.logTail)
    }

    /// A pjsua2 that requires timers calls us: no 420; our 2xx agrees, and pjsua2 keeps the call.
    func testAPJSUAThatRequiresTimersReachesUs() throws {
        try TestPrerequisites.pjsua2()
        let bob = try client("bob")
        defer { bob.client.shutdown() }
        let delegate = RecordingCallDelegate()
        bob.listen().acceptEach(with: delegate)
        let port = try SIPPeerProcess.freePort()
        let peer = try PJSUAPeer(PJSUAPeer.Options(
            port: port, call: "sip:bob@127.0.0.1:\(bob.client.localEndpoint.port)", script: [.sleep(2)], exitAfter: 20,
            sessionTimer: "required", sessionExpires: 90))
        defer { peer.stop() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks); pjsua2:\n\(peer.logTail)")
        XCTAssertTrue(peer.waitForLine("SENT sleep=2.0", timeout: 10), peer.logTail)
        XCTAssertFalse(peer.lines.contains { $0.hasPrefix("DISCONNECTED") }, "pjsua2 kept the call with our answer:\n\(peer.logTail)")
    }
}
