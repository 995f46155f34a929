import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceMediaTypes

/// `handleNotification`: push payloads that arrive before or after their INVITE, and cancels.
final class CallInviteNotificationTests: VirtualTimeTestCase {
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        super.tearDown()
    }

    /// A client in the suite's world, or (`real`) on loopback in real time, for a test whose
    /// peer is a raw UDP socket: the world is closed first, so the waits are real.
    private func client(_ name: String, real: Bool = false) throws -> TestVoiceClient {
        if real { world.close() }
        let client = try TestVoiceClient(name, world: real ? nil : world)
        clients.append(client)
        return client
    }

    private static let sid = "CA" + String(repeating: "ab", count: 16)

    private static func callPayload(params: String) -> [String: String] {
        [
            "twi_message_type": "twilio.voice.call", "twi_call_sid": sid, "twi_from": "client:alice",
            "twi_to": "client:bob", "twi_params": params,
        ]
    }

    /// An INVITE as a server that assigns call SIDs sends it, with an SRTP offer and X- headers.
    private func rawInvite(from channel: SIPPeerUDPChannel, to bob: TestVoiceClient) -> String {
        let local = channel.localAddress
        let sdp = [
            "v=0", "o=- 10 10 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio 30000 RTP/SAVP 0", "a=rtpmap:0 PCMU/8000",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR", "",
        ].joined(separator: "\r\n")
        return [
            "INVITE \(bob.address) SIP/2.0",
            "Via: SIP/2.0/UDP 127.0.0.1:\(local.port);branch=z9hG4bKnotify1;rport",
            "Max-Forwards: 70", "From: <sip:alice@127.0.0.1>;tag=srv", "To: <\(bob.address)>",
            "Call-ID: notify-test-1", "CSeq: 1 INVITE", "Contact: <sip:alice@127.0.0.1:\(local.port)>",
            "\(CallSid.headerName): \(Self.sid)", "X-customer: from-header", "X-order: 7",
            "Content-Type: application/sdp", "Content-Length: \(sdp.utf8.count)", "", sdp,
        ].joined(separator: "\r\n")
    }

    func testANotificationBeforeItsInviteTakesTheInviteWithItsParametersOnAClientThatNeverRegistered() throws {
        let bob = try client("bob", real: true)
        let pushed = ScriptedNotificationDelegate()
        let payload = Self.callPayload(params: "customer=from-push&note=a%20b")
        XCTAssertTrue(bob.client.handleNotification(payload, delegate: pushed, delegateQueue: pushed.queue))
        let server = try SIPPeerUDPChannel()
        try bob.client.agent.eventLoop.submit {}.wait()  // the notification is taken on the client's loop first
        try server.send(rawInvite(from: server, to: bob), to: SocketAddress(host: "127.0.0.1", port: bob.client.localEndpoint.port))
        let invite = try XCTUnwrap(pushed.waitForInvite())
        XCTAssertEqual(invite.callSid, Self.sid)
        XCTAssertEqual(invite.customParameters, ["customer": "from-header", "order": "7", "note": "a b"],
                       "the INVITE's X- headers plus the notification's twi_params; a header wins")
        XCTAssertNotNil(server.receive(timeout: .seconds(5)) { $0.hasPrefix("SIP/2.0 180") }, "the invite rings")
        // The same notification again reaches the same delegate only once.
        XCTAssertTrue(bob.client.handleNotification(payload, delegate: pushed, delegateQueue: pushed.queue))
        // Once the loop has taken it, and the delegate's queue has run what that sent it.
        try bob.client.agent.eventLoop.submit {}.wait()
        pushed.queue.sync {}
        XCTAssertEqual(pushed.invites.withLock { $0.count }, 1)
        invite.reject()
        XCTAssertNotNil(server.receive(timeout: .seconds(5)) { $0.hasPrefix("SIP/2.0 600") })
    }

    func testASIPCancelReachesTheDelegateTheNotificationDeliveredTheInviteTo() throws {
        let bob = try client("bob", real: true)
        let pushed = ScriptedNotificationDelegate()
        XCTAssertTrue(bob.client.handleNotification(Self.callPayload(params: "customer=42"), delegate: pushed, delegateQueue: pushed.queue))
        let server = try SIPPeerUDPChannel()
        try bob.client.agent.eventLoop.submit {}.wait()  // the notification is taken on the client's loop first
        let invite = rawInvite(from: server, to: bob)
        try server.send(invite, to: SocketAddress(host: "127.0.0.1", port: bob.client.localEndpoint.port))
        let delivered = try XCTUnwrap(pushed.waitForInvite())
        XCTAssertNotNil(server.receive(timeout: .seconds(5)) { $0.hasPrefix("SIP/2.0 180") })
        // CANCEL: the INVITE's request line, Via, From, To, Call-ID, with CSeq 1 CANCEL (RFC 3261 §9.1).
        let head = invite.components(separatedBy: "\r\n")
        let cancel = [head[0].replacingOccurrences(of: "INVITE", with: "CANCEL")]
            + head.filter { $0.hasPrefix("Via:") || $0.hasPrefix("From:") || $0.hasPrefix("To:") || $0.hasPrefix("Call-ID:") || $0.hasPrefix("Max-Forwards:") }
            + ["CSeq: 1 CANCEL", "Content-Length: 0", "", ""]
        try server.send(cancel.joined(separator: "\r\n"), to: SocketAddress(host: "127.0.0.1", port: bob.client.localEndpoint.port))
        XCTAssertTrue(PollingWait.until(timeout: 5) { !pushed.cancelled.withLock { $0 }.isEmpty }, "the pushed delegate hears of it")
        let (cancelled, error) = try XCTUnwrap(pushed.cancelled.withLock { $0.first })
        XCTAssertEqual(cancelled.callSid, delivered.callSid)
        XCTAssertEqual(error.code, .requestTerminated)
        XCTAssertNotNil(server.receive(timeout: .seconds(5)) { $0.hasPrefix("SIP/2.0 487") })
    }

    func testAnInviteWithoutANotificationOrARegisteredDelegateIsTurnedAwayWith480() throws {
        let alice = try client("alice"), bob = try client("bob")
        let delegate = RecordingCallDelegate()
        _ = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(), [.failed(.temporarilyUnavailable)])
    }

    func testACancelNotificationForAnInviteThatNeverArrivedDeliversACancelledInvite() throws {
        let bob = try client("bob")
        let pushed = ScriptedNotificationDelegate()
        let call = Self.callPayload(params: "customer=42")
        let cancel = ["twi_message_type": "twilio.voice.cancel", "twi_call_sid": Self.sid, "twi_to": "client:bob"]
        XCTAssertTrue(bob.client.handleNotification(call, delegate: pushed, delegateQueue: pushed.queue))
        XCTAssertTrue(bob.client.handleNotification(cancel, delegate: pushed, delegateQueue: pushed.queue))
        XCTAssertTrue(PollingWait.until(timeout: 5) { !pushed.cancelled.withLock { $0 }.isEmpty })
        let (cancelled, error) = try XCTUnwrap(pushed.cancelled.withLock { $0.first })
        XCTAssertEqual(cancelled.callSid, Self.sid)
        XCTAssertEqual(cancelled.from, "client:alice")
        XCTAssertEqual(cancelled.to, "client:bob")
        XCTAssertEqual(cancelled.customParameters, ["customer": "42"])
        XCTAssertEqual(error.code, .requestTerminated)
        XCTAssertTrue(pushed.invites.withLock { $0.isEmpty })
    }

    func testMalformedOrForeignPayloadsAreRefused() throws {
        let bob = try client("bob")
        let pushed = ScriptedNotificationDelegate()
        for payload in [
            ["aps": "x"], ["twi_message_type": "twilio.voice.call"],
            ["twi_message_type": "twilio.voice.call", "twi_call_sid": "CA123"],
            ["twi_message_type": "twilio.voice.other", "twi_call_sid": Self.sid],
        ] {
            XCTAssertFalse(bob.client.handleNotification(payload, delegate: pushed, delegateQueue: pushed.queue), "\(payload)")
        }
    }
}
