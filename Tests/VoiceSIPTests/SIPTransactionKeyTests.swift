import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SIPTransactionKeyTests: XCTestCase {
    private typealias Identity = SIPTransactionRequestIdentity

    // MARK: RFC vectors

    /// RFC 3261 §24.2 F1: `Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bKnashds8`, and F11's
    /// ACK to the 2xx with its own branch z9hG4bKnashds9.
    func testRFC3261SessionSetupVectors() throws {
        let invite = try SIPTransactionKey.server(
            for: Identity(method: "INVITE", branch: "z9hG4bKnashds8", sentByHost: "pc33.atlanta.com", transport: "UDP"))
        XCTAssertEqual(invite.sentBy, "pc33.atlanta.com:5060")
        XCTAssertEqual(invite.method, "INVITE")
        let retransmission = try SIPTransactionKey.server(
            for: Identity(method: "INVITE", branch: "z9hG4bKnashds8", sentByHost: "PC33.Atlanta.COM", sentByPort: 5060))
        XCTAssertEqual(invite, retransmission, "host compares case-insensitively; 5060 is UDP's default")
        let ackToSuccess = try SIPTransactionKey.server(
            for: Identity(method: "ACK", branch: "z9hG4bKnashds9", sentByHost: "pc33.atlanta.com"))
        XCTAssertNotEqual(invite, ackToSuccess, "the ACK to a 2xx is a transaction of its own")
        let ackToFailure = try SIPTransactionKey.server(
            for: Identity(method: "ACK", branch: "z9hG4bKnashds8", sentByHost: "pc33.atlanta.com"))
        XCTAssertEqual(invite, ackToFailure, "the ACK to a non-2xx matches the INVITE")
    }

    /// RFC 3665 §3.1 F1 (`Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9`)
    /// and RFC 5359 §2.8 F1 (`Via: SIP/2.0/TLS client.atlanta.example.com:5061;branch=z9hG4bK74bf9`).
    func testDefaultPortDependsOnTransport() throws {
        let tcp = try SIPTransactionKey.server(
            for: Identity(
                method: "INVITE", branch: "z9hG4bK74bf9", sentByHost: "client.atlanta.example.com", sentByPort: 5060, transport: "TCP"))
        let tcpNoPort = try SIPTransactionKey.server(
            for: Identity(method: "INVITE", branch: "z9hG4bK74bf9", sentByHost: "client.atlanta.example.com", transport: "TCP"))
        XCTAssertEqual(tcp, tcpNoPort)
        let tls = try SIPTransactionKey.server(
            for: Identity(
                method: "INVITE", branch: "z9hG4bK74bf9", sentByHost: "client.atlanta.example.com", sentByPort: 5061, transport: "TLS"))
        let tlsNoPort = try SIPTransactionKey.server(
            for: Identity(method: "INVITE", branch: "z9hG4bK74bf9", sentByHost: "client.atlanta.example.com", transport: "tls"))
        XCTAssertEqual(tls, tlsNoPort)
        XCTAssertNotEqual(tcp, tls)
    }

    /// RFC 2543-style request without the magic cookie (the "sip8" torture message:
    /// `branch=7c337f30d7ce.1`, Call-ID 602214199@mouse.wonderland.com, CSeq 1 INVITE).
    func testRFC2543RequestsMatchOnLegacyValues() throws {
        let legacy = Identity.Legacy(
            requestURI: "sip:bob@one.example.com", callID: "602214199@mouse.wonderland.com", fromTag: "1", cseqNumber: 1)
        let invite = try SIPTransactionKey.server(
            for: Identity(method: "INVITE", branch: "7c337f30d7ce.1", sentByHost: "sip.example.com", legacy: legacy))
        let ack = try SIPTransactionKey.server(
            for: Identity(method: "ACK", branch: "7c337f30d7ce.1", sentByHost: "sip.example.com", legacy: legacy))
        XCTAssertEqual(invite, ack)
        XCTAssertTrue(invite.branch.isEmpty)
        var other = legacy
        other.cseqNumber = 2
        XCTAssertNotEqual(
            invite, try SIPTransactionKey.server(for: Identity(method: "INVITE", branch: nil, sentByHost: "sip.example.com", legacy: other))
        )
        XCTAssertThrowsError(
            try SIPTransactionKey.server(for: Identity(method: "INVITE", branch: "7c337f30d7ce.1", sentByHost: "sip.example.com"))
        ) {
            XCTAssertEqual($0 as? SIPTransactionError, .invalidBranch, "no cookie and no legacy values cannot be matched")
        }
    }

    // MARK: Matching rules

    func testServerMatchingTable() throws {
        let base = Identity(method: "INVITE", branch: "z9hG4bKabc", sentByHost: "192.0.2.1", sentByPort: 5060)
        let key = try SIPTransactionKey.server(for: base)
        let cases: [(String, Identity, Bool)] = [
            ("same", base, true),
            ("other branch", Identity(method: "INVITE", branch: "z9hG4bKabd", sentByHost: "192.0.2.1", sentByPort: 5060), false),
            ("branch case differs", Identity(method: "INVITE", branch: "z9hG4bKABC", sentByHost: "192.0.2.1", sentByPort: 5060), false),
            ("other sent-by host", Identity(method: "INVITE", branch: "z9hG4bKabc", sentByHost: "192.0.2.2", sentByPort: 5060), false),
            ("other sent-by port", Identity(method: "INVITE", branch: "z9hG4bKabc", sentByHost: "192.0.2.1", sentByPort: 5070), false),
            ("ACK", Identity(method: "ACK", branch: "z9hG4bKabc", sentByHost: "192.0.2.1", sentByPort: 5060), true),
            ("CANCEL", Identity(method: "CANCEL", branch: "z9hG4bKabc", sentByHost: "192.0.2.1", sentByPort: 5060), false),
            ("method case differs", Identity(method: "invite", branch: "z9hG4bKabc", sentByHost: "192.0.2.1", sentByPort: 5060), false),
        ]
        for (name, identity, matches) in cases {
            XCTAssertEqual(try SIPTransactionKey.server(for: identity) == key, matches, name)
        }
    }

    func testCancelKeyPointsAtTheInvite() throws {
        let invite = try SIPTransactionKey.server(for: Identity(method: "INVITE", branch: "z9hG4bKabc", sentByHost: "h"))
        let cancel = try SIPTransactionKey.server(for: Identity(method: "CANCEL", branch: "z9hG4bKabc", sentByHost: "h"))
        XCTAssertEqual(cancel.cancelledInviteKey, invite)
        XCTAssertNil(invite.cancelledInviteKey)
        XCTAssertNil(
            try SIPTransactionKey.client(branch: "z9hG4bKabc", method: "CANCEL").cancelledInviteKey, "client keys have no cancel target")
    }

    func testClientKeyIsBranchAndMethod() throws {
        let invite = try SIPTransactionKey.client(branch: "z9hG4bKnashds8", method: "INVITE")
        XCTAssertEqual(invite, try SIPTransactionKey.client(branch: "z9hG4bKnashds8", method: "INVITE"))
        XCTAssertNotEqual(invite, try SIPTransactionKey.client(branch: "z9hG4bKnashds8", method: "CANCEL"))
        XCTAssertEqual(invite.description, "client INVITE z9hG4bKnashds8")
    }

    // MARK: Malformed input

    func testMalformedValuesAreTypedErrors() {
        let longBranch = "z9hG4bK" + String(repeating: "a", count: SIPTransactionKey.maximumBranchLength)
        let clientCases: [(String, String, SIPTransactionError)] = [
            ("", "INVITE", .invalidBranch),
            (longBranch, "INVITE", .invalidBranch),
            ("z9hG4bK a", "INVITE", .invalidBranch),
            ("z9hG4bK;x", "INVITE", .invalidBranch),
            ("z9hG4bKé", "INVITE", .invalidBranch),
            ("z9hG4bK1", "", .invalidMethod),
            ("z9hG4bK1", "IN VITE", .invalidMethod),
            ("z9hG4bK1", String(repeating: "X", count: 33), .invalidMethod),
            ("z9hG4bK1", "ACK", .ackIsNotATransaction),
        ]
        for (branch, method, expected) in clientCases {
            XCTAssertThrowsError(try SIPTransactionKey.client(branch: branch, method: method), "\(branch) \(method)") {
                XCTAssertEqual($0 as? SIPTransactionError, expected)
            }
        }
        let serverCases: [(Identity, SIPTransactionError)] = [
            (Identity(method: "INVITE", branch: "z9hG4bK1", sentByHost: ""), .invalidSentBy),
            (Identity(method: "INVITE", branch: "z9hG4bK1", sentByHost: "a b"), .invalidSentBy),
            (Identity(method: "INVITE", branch: "z9hG4bK1", sentByHost: String(repeating: "h", count: 256)), .invalidSentBy),
            (Identity(method: "INVITE", branch: "z9hG4bK1", sentByHost: "h", sentByPort: 0), .invalidSentBy),
            (Identity(method: "INVITE", branch: "z9hG4bK1", sentByHost: "h", sentByPort: 65_536), .invalidSentBy),
            (Identity(method: "INVITE", branch: nil, sentByHost: "h"), .invalidBranch),
            (Identity(method: "INVITE", branch: "z9hG4bK\u{0}", sentByHost: "h"), .invalidBranch),
            (Identity(method: "", branch: "z9hG4bK1", sentByHost: "h"), .invalidMethod),
        ]
        for (identity, expected) in serverCases {
            XCTAssertThrowsError(try SIPTransactionKey.server(for: identity), "\(identity)") {
                XCTAssertEqual($0 as? SIPTransactionError, expected)
            }
        }
    }

    func testErrorsDescribeThemselves() {
        XCTAssertTrue(SIPTransactionError.tableFull.description.contains("full"))
        XCTAssertTrue(SIPTransactionError.invalidBranch.description.contains("branch"))
        XCTAssertNotEqual(SIPTransactionError.invalidMethod, .invalidBranch)
    }
}
