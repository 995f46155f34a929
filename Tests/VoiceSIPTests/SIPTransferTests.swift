import VoiceSupport
import XCTest

@testable import VoiceSIP

/// Call transfer in the session (RFC 3515 REFER and its implicit subscription, RFC 3891
/// Replaces in Refer-To, RFC 3892 Referred-By), both sides, and what a bad REFER or NOTIFY gets.
final class SIPTransferTests: XCTestCase {
    typealias F = SIPInviteSessionFixture
    private let carol = SIPURI(user: "carol", host: "192.0.2.30", port: 5060)

    private func refer(_ alice: inout SIPInviteSession, replaces: SIPReplaces? = nil) throws -> SIPRequest {
        try F.single(F.requests(try alice.sendRefer(to: carol, replaces: replaces, now: .zero)))
    }

    func testABlindTransferReportsEachNotifyAndEndsTheSubscriptionOnTheFinalOne() throws {
        var (alice, bob) = try F.establishedCall()
        let refer = try refer(&alice)
        XCTAssertEqual(refer.method, .refer)
        XCTAssertEqual(try refer.headers.referTo(), SIPNameAddress(uri: carol))
        XCTAssertEqual(try refer.headers.referredBy()?.uri, F.alice.localIdentity.uri)
        XCTAssertNotNil(refer.headers.first("contact"))
        XCTAssertThrowsError(try alice.sendRefer(to: carol, now: .zero), "one transfer at a time") {
            XCTAssertEqual($0 as? SIPInviteSessionError, .transferInProgress)
        }

        // Bob is asked, accepts: 202, then NOTIFY 100 Trying opening the subscription.
        let asked = bob.receiveRequest(refer, now: .zero)
        XCTAssertEqual(F.events(asked), [.referReceived(SIPReferRequest(target: carol, referredBy: SIPNameAddress(uri: F.alice.localIdentity.uri)))])
        XCTAssertTrue(F.responses(asked).isEmpty, "the app decides first")
        let accepted = bob.answerRefer(accept: true, now: .zero)
        let response = try F.single(F.responses(accepted))
        XCTAssertEqual(response.statusCode, 202)
        let trying = try F.single(F.requests(accepted))
        XCTAssertEqual(trying.method, .notify)
        XCTAssertEqual(trying.headers.first("event"), "refer;id=\(try refer.headers.cseq().sequence)")
        XCTAssertEqual(trying.headers.first("subscription-state"), "active;expires=60")
        XCTAssertEqual(try trying.headers.contentType()?.subtype, "sipfrag")
        XCTAssertEqual(try SIPFragmentStatus(parsing: trying.body).statusCode, 100)

        XCTAssertEqual(F.events(alice.receiveResponse(response, now: .zero)), [.referProgress(.accepted)])
        let tryingHeard = alice.receiveRequest(trying, now: .zero)
        XCTAssertEqual(try F.single(F.responses(tryingHeard)).statusCode, 200)
        XCTAssertEqual(F.events(tryingHeard), [.referProgress(.notified(statusCode: 100, final: false))])

        let ringing = try F.single(F.requests(bob.notifyRefer(statusCode: 180, now: .seconds(1))))
        XCTAssertEqual(F.events(alice.receiveRequest(ringing, now: .seconds(1))), [.referProgress(.notified(statusCode: 180, final: false))])
        let answered = try F.single(F.requests(bob.notifyRefer(statusCode: 200, now: .seconds(2))))
        XCTAssertEqual(answered.headers.first("subscription-state"), "terminated;reason=noresource")
        let done = alice.receiveRequest(answered, now: .seconds(2))
        XCTAssertEqual(F.events(done), [.referProgress(.notified(statusCode: 200, final: true))])
        XCTAssertTrue(done.contains(.cancelTimer(.referSubscription)))
        XCTAssertTrue(bob.notifyRefer(statusCode: 200, now: .seconds(3)).isEmpty, "the subscription is over")
        XCTAssertEqual(try F.single(F.responses(alice.receiveRequest(answered, now: .seconds(3)))).statusCode, 481, "no subscription any more")
        _ = try self.refer(&alice)  // and a next transfer may start
    }

    func testAnAttendedTransferCarriesReplacesInsideReferTo() throws {
        var (alice, bob) = try F.establishedCall()
        let replaces = SIPReplaces(callID: "abc@192.0.2.10", toTag: "carol-tag", fromTag: "alice-tag")
        let refer = try refer(&alice, replaces: replaces)
        XCTAssertTrue(refer.headers.first("refer-to")?.contains("?Replaces=abc%40192.0.2.10%3Bto-tag%3Dcarol-tag%3Bfrom-tag%3Dalice-tag") ?? false, "\(refer.headers.first("refer-to") ?? "")")
        guard case .referReceived(let request)? = F.events(bob.receiveRequest(refer, now: .zero)).first else { return XCTFail("no REFER") }
        XCTAssertEqual(request.replaces, replaces)
        XCTAssertEqual(request.target, carol, "the URI's header part goes to the INVITE, not its Request-URI")
    }

    func testARefusedReferAndOneNeverAnsweredAreReported() throws {
        var (alice, bob) = try F.establishedCall()
        let refer = try refer(&alice)
        _ = bob.receiveRequest(refer, now: .zero)
        let refused = try F.single(F.responses(bob.answerRefer(accept: false, now: .zero)))
        XCTAssertEqual(refused.statusCode, 603)
        XCTAssertEqual(F.events(alice.receiveResponse(refused, now: .zero)), [.referProgress(.refused(statusCode: 603))])

        let again = try self.refer(&alice)
        XCTAssertEqual(F.events(alice.requestFailed(method: .refer, cseq: try again.headers.cseq().sequence, failure: .transactionTimeout, now: .seconds(32))), [.referProgress(.refused(statusCode: 408))])
        XCTAssertEqual(alice.state, .confirmed, "a transfer that failed leaves the call up")

        // Accepted, then no final NOTIFY: the outcome is unknown (408) once the wait is over.
        let third = try self.refer(&alice)
        _ = alice.receiveResponse(F.reply(third, 202, toTag: bob.localTag), now: .zero)
        XCTAssertEqual(F.events(alice.timerFired(.referSubscription, now: .seconds(120))), [.referProgress(.notified(statusCode: 408, final: true))])
    }

    func testBadReferRequestsGetTheirStatusAndChangeNothing() throws {
        var (alice, bob) = try F.establishedCall()
        var dialog = try XCTUnwrap(alice.currentDialog)
        func send(_ referTo: String?, extra: [(String, String)] = []) -> SIPResponse? {
            var headers: [(String, String)] = extra
            if let referTo { headers.append(("Refer-To", referTo)) }
            let request = dialog.makeRequest(method: .refer, via: SIPVia(transport: "UDP", host: "192.0.2.10", branch: "z9hG4bK\(UInt64.random(in: 0...UInt64.max))"), headers: headers)
            return F.responses(bob.receiveRequest(request, now: .zero)).first
        }
        XCTAssertEqual(send(nil)?.statusCode, 400, "no Refer-To")
        XCTAssertEqual(send("<sip:carol@192.0.2.30")?.statusCode, 400, "malformed")
        XCTAssertEqual(send("<sips:carol@192.0.2.30>")?.statusCode, 416, "sips over UDP")
        XCTAssertEqual(send("<mailto:carol@example.com>")?.statusCode, 416, "not a SIP URI")
        XCTAssertEqual(send("<sip:carol@192.0.2.30?Replaces=nothing>")?.statusCode, 400, "a Replaces without tags")
        XCTAssertEqual(send("<sip:carol@192.0.2.30>", extra: [("Referred-By", "<sip:mallory")])?.statusCode, 400, "a bad Referred-By")
        XCTAssertEqual(bob.state, .confirmed)
        // A flood: the first is put to the app, the rest wait their turn (491) and change nothing.
        XCTAssertNil(send("<sip:carol@192.0.2.30>"))
        for _ in 0..<20 { XCTAssertEqual(send("<sip:dave@192.0.2.40>")?.statusCode, 491) }
        // The call ends while the app decides: the REFER gets its answer.
        let ended = bob.hangUp(now: .seconds(1))
        XCTAssertTrue(F.responses(ended).contains { $0.statusCode == 603 })
    }

    func testBadNotifyRequestsGetTheirStatus() throws {
        var (alice, bob) = try F.establishedCall()
        var dialog = try XCTUnwrap(bob.currentDialog)
        func notify(_ headers: [(String, String)], body: String = "SIP/2.0 200 OK\r\n") -> Int? {
            let request = dialog.makeRequest(
                method: .notify, via: SIPVia(transport: "UDP", host: "192.0.2.20", branch: "z9hG4bK\(UInt64.random(in: 0...UInt64.max))"),
                headers: headers, body: Array(body.utf8), contentType: "message/sipfrag")
            return F.responses(alice.receiveRequest(request, now: .zero)).first?.statusCode
        }
        XCTAssertEqual(notify([]), 489, "no Event")
        XCTAssertEqual(notify([("Event", "presence")]), 489, "another package")
        XCTAssertEqual(notify([("Event", "refer")]), 481, "no REFER of ours")
        let refer = try refer(&alice)
        let id = try refer.headers.cseq().sequence
        XCTAssertEqual(notify([("Event", "refer;id=\(id + 7)")]), 481, "another REFER's")
        XCTAssertEqual(notify([("Event", "refer;id=\(id)")], body: "garbage"), 400)
        XCTAssertEqual(notify([("Event", "refer;id=\(id)")], body: "SIP/2.0 99 Odd\r\n"), 400)
        XCTAssertEqual(alice.state, .confirmed)
        XCTAssertEqual(notify([("Event", "refer;id=\(id)"), ("Subscription-State", "active")], body: "SIP/2.0 180 Ringing\r\n"), 200)
    }

    func testAReferOutsideAConfirmedCallIsForbidden() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        _ = bob.ring(now: .zero)
        XCTAssertThrowsError(try alice.sendRefer(to: carol, now: .zero))
        var headers = SIPHeaders()
        for name in ["From", "Call-ID"] { headers.add(name, invite.headers.first(name) ?? "") }
        headers.add("Via", "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK-refer")
        headers.add("To", "<sip:bob@bob.example.com>;tag=\(bob.localTag)")
        headers.add("CSeq", "2 REFER")
        headers.add("Refer-To", "<sip:carol@192.0.2.30>")
        let early = SIPRequest(method: .refer, uri: invite.uri, headers: headers)
        XCTAssertEqual(try F.single(F.responses(bob.receiveRequest(early, now: .zero))).statusCode, 403)
    }

    func testReplacesAndSipfragValues() throws {
        // RFC 3891 §6.1's example.
        XCTAssertEqual(
            try SIPReplaces(parsing: "98732@sip.example.com;from-tag=r33th4x0r;to-tag=ff87ff"),
            SIPReplaces(callID: "98732@sip.example.com", toTag: "ff87ff", fromTag: "r33th4x0r"))
        XCTAssertEqual(try SIPReplaces(parsing: "a;to-tag=1;from-tag=2;early-only").earlyOnly, true)
        let value = SIPReplaces(callID: "x@h", toTag: "t", fromTag: "f", earlyOnly: true)
        XCTAssertEqual(try SIPReplaces(parsing: value.description), value)
        for bad in ["", ";to-tag=1;from-tag=2", "a;to-tag=1", "a;from-tag=2", "a b;to-tag=1;from-tag=2", "@h;to-tag=1;from-tag=2", "a;to-tag=;from-tag=2", "a;to-tag=1;from-tag=2 junk"] {
            XCTAssertThrowsError(try SIPReplaces(parsing: bad), bad)
        }
        // RFC 3420 §2 and RFC 3515 §2.4.5 bodies.
        XCTAssertEqual(try SIPFragmentStatus(parsing: Array("SIP/2.0 603 Declined\r\n".utf8)), SIPFragmentStatus(statusCode: 603, reasonPhrase: "Declined"))
        XCTAssertEqual(try SIPFragmentStatus(parsing: Array("SIP/2.0 200 OK\r\nContent-Type: application/sdp\r\n\r\n".utf8)).statusCode, 200)
        XCTAssertEqual(try SIPFragmentStatus(parsing: Array("SIP/2.0 100 Trying".utf8)).statusCode, 100, "no line end")
        for bad in ["", "\r\n", "SIP/1.0 200 OK", "SIP/2.0 700 Odd", "SIP/2.0 20 OK", "INVITE sip:a@b SIP/2.0", "SIP/2.0 200 O\u{1}K"] {
            XCTAssertThrowsError(try SIPFragmentStatus(parsing: Array(bad.utf8)), bad)
        }
        XCTAssertThrowsError(try SIPFragmentStatus(parsing: Array(repeating: 0x41, count: 5_000)))
    }
}
