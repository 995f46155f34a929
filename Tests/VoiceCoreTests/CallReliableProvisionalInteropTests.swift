import VoiceEmbedded
import Foundation
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// RFC 3262 reliable provisional responses with pjsip (pjsua2) requiring 100rel, calling and
/// called: no 420, each reliable 18x acknowledged by a PRACK that gets its 200, and the call
/// set up after. The rest (retransmission, RSeq order, the 2xx held behind an unacknowledged
/// 183, the 500 when no PRACK comes) is on the session's virtual clock in
/// `SIPReliableProvisionalTests`.
final class CallReliableProvisionalInteropTests: XCTestCase {
    private func client(_ name: String) throws -> TestVoiceClient {
        try TestVoiceClient(name) { configuration in
            configuration.mediaSecurity = .sdes  // pjsua2 as installed keys with SDES
        }
    }

    /// We call a pjsua2 that requires 100rel and answers 183 with SDP (early media) a second
    /// before its 200: we PRACK the 183, pjsua2 answers the PRACK 200, and the call connects.
    func testWeAcknowledgeAPJSUAReliable183WithEarlyMedia() throws {
        try TestPrerequisites.pjsua2()
        let port = try SIPPeerProcess.freePort()
        let peer = try PJSUAPeer(PJSUAPeer.Options(port: port, exitAfter: 20, prack: "required", ring: 1.5, ringStatus: 183))
        defer { peer.stop() }
        let alice = try client("alice")
        defer { alice.client.shutdown() }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "sip:pj@127.0.0.1:\(port)", delegate: delegate)
        defer { call.disconnect() }
        XCTAssertTrue(peer.waitForLine("TSX PRACK received 200", timeout: 10), "no PRACK reached pjsua2:\n\(peer.logTail)")
        XCTAssertFalse(peer.lines.contains("ANSWERED"), "the PRACK came while pjsua2 still sent early media:\n\(peer.logTail)")
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks); pjsua2:\n\(peer.logTail)")
        XCTAssertEqual(delegate.callbacks.filter { $0 == .ringing }.count, 1, "the 183 is reported once, whatever its retransmissions")
        XCTAssertEqual(peer.lines.filter { $0.hasPrefix("TSX PRACK") }.count, 1, peer.logTail)
        XCTAssertEqual(call.state, .connected)
    }

    /// A pjsua2 that requires 100rel calls us: no 420; our 180 goes reliably, pjsua2 PRACKs it,
    /// and the call we answer after is confirmed.
    func testAPJSUAThatRequires100relReachesUs() throws {
        try TestPrerequisites.pjsua2()
        let bob = try client("bob")
        defer { bob.client.shutdown() }
        let notifications = bob.listen()
        let port = try SIPPeerProcess.freePort()
        let peer = try PJSUAPeer(PJSUAPeer.Options(
            port: port, call: "sip:bob@127.0.0.1:\(bob.client.localEndpoint.port)", script: [.sleep(1)], exitAfter: 20,
            prack: "required"))
        defer { peer.stop() }
        let invite = try XCTUnwrap(notifications.waitForInvite(), "no invite; pjsua2:\n\(peer.logTail)")
        XCTAssertTrue(peer.waitForLine("TSX PRACK sent 200", timeout: 10), "pjsua2 did not acknowledge our 180:\n\(peer.logTail)")
        let delegate = RecordingCallDelegate()
        let call = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = delegate.queue }, delegate: delegate)
        defer { call.disconnect() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks); pjsua2:\n\(peer.logTail)")
        XCTAssertTrue(peer.waitForLine("CONFIRMED", timeout: 10), peer.logTail)
        XCTAssertFalse(peer.lines.contains { $0.hasPrefix("DISCONNECTED") }, peer.logTail)
    }
}
