import Foundation
import VoiceEmbedded
import VoiceRTP
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Transfer between our own clients on loopback: the default answer to a transfer request (a
/// refusal), and what an INVITE with a Replaces that matches no call of ours gets.
final class CallTransferTests: XCTestCase {
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
    }

    private func client(_ name: String, tone: Double = 440) throws -> TestVoiceClient {
        let client = try TestVoiceClient(name, signal: ConnectedCallPair.tone(tone))
        clients.append(client)
        return client
    }

    /// A delegate that does not handle transfer requests refuses them (603): the transferor
    /// hears the refusal and both keep their call.
    func testTheDefaultDelegateRefusesATransferAndTheCallGoesOn() throws {
        let alice = try client("alice")
        let bob = try client("bob")
        let bobDelegate = TransferRecordingDelegate()
        let accepted = bob.listen().acceptEach(withTransferDelegate: bobDelegate)
        let aliceDelegate = RecordingCallDelegate()  // no transfer handling: the default refuses
        let call = alice.connect(to: bob.address, delegate: aliceDelegate)
        XCTAssertTrue(bobDelegate.wait { $0.contains("connected") })
        let bobCall = try XCTUnwrap(accepted.value)

        bobCall.transfer(to: "sip:carol@127.0.0.1:9")
        XCTAssertTrue(PollingWait.until(timeout: 5) { !bobDelegate.progress.isEmpty }, "\(bobDelegate.progress)")
        guard case .failed(let error)? = bobDelegate.progress.last else { return XCTFail("\(bobDelegate.progress)") }
        XCTAssertEqual(error.code, .decline)
        XCTAssertEqual(error.sipStatus, 603)
        XCTAssertEqual(call.state, .connected)
        XCTAssertEqual(bobCall.state, .connected)

        // Refused, the transfer may be tried again: a second request reaches alice.
        bobCall.transfer(to: "sip:dave@127.0.0.1:9")
        XCTAssertTrue(PollingWait.until(timeout: 5) { bobDelegate.progress.count == 2 }, "\(bobDelegate.progress)")
    }

    /// An INVITE with Replaces is only for a confirmed call of ours named by its Call-ID and
    /// both tags: otherwise 481 (400 when malformed, 486 for early-only), and the call it
    /// named, if any, goes on.
    func testAnInviteReplacingNoCallOfOursIsRefused() throws {
        let alice = try client("alice")
        let carol = try client("carol")
        let carolDelegate = TransferRecordingDelegate()
        let accepted = carol.listen().acceptEach(withTransferDelegate: carolDelegate)
        let aliceDelegate = RecordingCallDelegate()
        _ = alice.connect(to: carol.address, delegate: aliceDelegate)
        XCTAssertTrue(carolDelegate.wait { $0.contains("connected") })
        let carolCall = try XCTUnwrap(accepted.value)
        let info = try XCTUnwrap(
            try carol.client.agent.eventLoop.submit { carol.client.calls.keys.first.flatMap { carol.client.agent.callInfo($0) } }.wait())
        let remoteTag = try XCTUnwrap(info.remoteTag)

        let server = try SIPPeerUDPChannel()
        defer { server.close() }
        let destination = try SocketAddress(host: "127.0.0.1", port: carol.client.localEndpoint.port)
        for (index, (replaces, status)) in [
            ("unknown@127.0.0.1;to-tag=\(info.localTag);from-tag=\(remoteTag)", 481),
            ("\(info.callID);to-tag=\(info.localTag);from-tag=wrong", 481),
            ("\(info.callID);to-tag=wrong;from-tag=\(remoteTag)", 481),
            ("\(info.callID);to-tag=\(info.localTag);from-tag=\(remoteTag);early-only", 486),
            ("garbage", 400),
        ].enumerated() {
            try server.send(invite(from: server, to: carol, index: index, replaces: replaces), to: destination)
            let answer = server.receive(timeout: .seconds(5)) { !$0.hasPrefix("SIP/2.0 100") }
            XCTAssertTrue(answer?.hasPrefix("SIP/2.0 \(status)") ?? false, "\(replaces): \(answer ?? "no answer")")
        }
        XCTAssertEqual(carolCall.state, .connected)
        XCTAssertFalse(carolDelegate.callbacks.contains("replaced"))
    }

    private func invite(from channel: SIPPeerUDPChannel, to callee: TestVoiceClient, index: Int, replaces: String) -> String {
        let port = channel.localAddress.port
        let sdp = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0", "m=audio 30000 RTP/AVP 0", "a=rtpmap:0 PCMU/8000", ""]
            .joined(separator: "\r\n")
        return [
            "INVITE \(callee.address) SIP/2.0",
            "Via: SIP/2.0/UDP 127.0.0.1:\(port);branch=z9hG4bKreplaces\(index);rport",
            "Max-Forwards: 70", "From: <sip:mallory@127.0.0.1>;tag=m\(index)", "To: <\(callee.address)>",
            "Call-ID: replaces-test-\(index)", "CSeq: 1 INVITE", "Contact: <sip:mallory@127.0.0.1:\(port)>",
            "Replaces: \(replaces)", "Content-Type: application/sdp", "Content-Length: \(sdp.utf8.count)", "", sdp,
        ].joined(separator: "\r\n")
    }
}
