import Foundation
import VoiceMedia
import VoiceTestKit
import XCTest
import VoiceMediaTypes
import VoiceSupport

/// Kamailio as registrar and proxy, spoken to with hand-written SIP over UDP.
final class SIPPeerHarnessKamailioTests: XCTestCase {
    private func startKamailio() throws -> KamailioPeer {
        try requirePeer("kamailio")
        return try KamailioPeer()
    }

    private func register(
        _ channel: SIPPeerUDPChannel, to kamailio: KamailioPeer, user: String, cseq: Int,
        authorization: String? = nil
    ) throws -> String {
        let local = channel.localAddress
        let realm = kamailio.configuration.realm
        var lines = [
            "REGISTER sip:\(realm) SIP/2.0",
            "Via: SIP/2.0/UDP \(local);branch=z9hG4bK-reg-\(cseq);rport",
            "Max-Forwards: 70",
            "From: <sip:\(user)@\(realm)>;tag=reg1",
            "To: <sip:\(user)@\(realm)>",
            "Call-ID: reg-\(user)@127.0.0.1",
            "CSeq: \(cseq) REGISTER",
            "Contact: <sip:\(user)@\(local)>",
            "Expires: 60",
        ]
        if let authorization { lines.append("Authorization: \(authorization)") }
        lines += ["Content-Length: 0", "", ""]
        try channel.send(lines.joined(separator: "\r\n"), to: kamailio.udpAddress)
        let reply = channel.receive(timeout: .seconds(5)) { $0.contains("z9hG4bK-reg-\(cseq)") }
        return try XCTUnwrap(reply, "no answer to REGISTER; log:\n\(kamailio.process.logTail())")
    }

    func testAnswersOptions() throws {
        let kamailio = try startKamailio()
        defer { kamailio.stop() }
        let channel = try SIPPeerUDPChannel()
        defer { channel.close() }
        let request = SIPPeerProcess.optionsRequest(requestURI: kamailio.uri, from: channel.localAddress, branch: "z9hG4bK-k-opt")
        try channel.send(request, to: kamailio.udpAddress)
        let reply = try XCTUnwrap(channel.receive(timeout: .seconds(5)))
        XCTAssertEqual(SIPPeerHarnessText.statusCode(reply), 200, reply)
        XCTAssertEqual(SIPPeerHarnessText.header("CSeq", in: reply), "1 OPTIONS")
        XCTAssertTrue(kamailio.process.isRunning)
    }

    func testRegisterIsChallengedThenAcceptedWithMD5Digest() throws {
        let kamailio = try startKamailio()
        defer { kamailio.stop() }
        let channel = try SIPPeerUDPChannel()
        defer { channel.close() }

        let challenge = try register(channel, to: kamailio, user: "alice", cseq: 1)
        XCTAssertEqual(SIPPeerHarnessText.statusCode(challenge), 401, challenge)
        let header = try XCTUnwrap(SIPPeerHarnessText.header("WWW-Authenticate", in: challenge))
        XCTAssertTrue(header.hasPrefix("Digest "))
        let realm = try XCTUnwrap(SIPPeerHarnessText.parameter("realm", in: header))
        let nonce = try XCTUnwrap(SIPPeerHarnessText.parameter("nonce", in: header))
        XCTAssertEqual(realm, "sippeer.test")

        let uri = "sip:\(realm)"
        let wrong = SIPPeerHarnessMD5.digestResponse(
            user: "alice", realm: realm, password: "wrong", method: "REGISTER", uri: uri, nonce: nonce)
        let rejected = try register(
            channel, to: kamailio, user: "alice", cseq: 2,
            authorization:
                "Digest username=\"alice\", realm=\"\(realm)\", nonce=\"\(nonce)\", uri=\"\(uri)\", response=\"\(wrong)\", algorithm=MD5")
        XCTAssertEqual(SIPPeerHarnessText.statusCode(rejected), 401, "a wrong password must not register")

        let response = SIPPeerHarnessMD5.digestResponse(
            user: "alice", realm: realm, password: "alicepass", method: "REGISTER", uri: uri, nonce: nonce)
        let accepted = try register(
            channel, to: kamailio, user: "alice", cseq: 3,
            authorization:
                "Digest username=\"alice\", realm=\"\(realm)\", nonce=\"\(nonce)\", uri=\"\(uri)\", response=\"\(response)\", algorithm=MD5"
        )
        XCTAssertEqual(SIPPeerHarnessText.statusCode(accepted), 200, accepted)
        let contact = try XCTUnwrap(SIPPeerHarnessText.header("Contact", in: accepted))
        XCTAssertTrue(contact.contains("sip:alice@\(channel.localAddress)"), contact)
        XCTAssertTrue(contact.contains("expires="), contact)
    }

    func testUnknownUserIsChallenged() throws {
        let kamailio = try startKamailio()
        defer { kamailio.stop() }
        let channel = try SIPPeerUDPChannel()
        defer { channel.close() }
        let reply = try register(channel, to: kamailio, user: "mallory", cseq: 1)
        XCTAssertEqual(SIPPeerHarnessText.statusCode(reply), 401)
    }
}
