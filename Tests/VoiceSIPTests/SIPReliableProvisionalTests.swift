import VoiceSupport
import XCTest

@testable import VoiceSIP

/// RFC 3262 reliable provisional responses and PRACK, both roles, on the session's own clock:
/// which provisionals go reliably, their retransmission and RSeq, the 2xx held behind an
/// unacknowledged 183, the caller's PRACK once per RSeq in order, and the 500 when no PRACK comes.
final class SIPReliableProvisionalTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    /// A caller requiring 100rel (as pjsua2 with prackUse required does).
    private func requiringInvite() throws -> (SIPInviteSession, SIPRequest) {
        var alice = F.caller(F.alice, extraHeaders: [("Require", "100rel")])
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        return (alice, invite)
    }

    func testTheInviteSupports100relBesideTheOtherTagsInOneField() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        XCTAssertEqual(invite.headers["supported"], ["100rel, replaces, timer"])
        var off = F.alice
        off.reliableProvisionals = false
        var plain = F.caller(off)
        let without = try F.single(F.requests(plain.start(now: .zero)))
        XCTAssertEqual(without.headers["supported"], ["replaces, timer"])
    }

    func testAnEarlyMedia183IsResentUntilItsPRACKAndThe200WaitsBehindIt() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let early = bob.sendEarlyMedia(now: .zero)
        let progress = try F.single(F.responses(early))
        XCTAssertEqual(progress.statusCode, 183)
        XCTAssertTrue(progress.headers.lists(optionTag: "100rel", in: "require"), "the caller supports 100rel and the 183 carries SDP")
        let rseq = try XCTUnwrap(try progress.headers.rseq())
        XCTAssertEqual(F.started(early)[.provisionalRetransmission], F.t1)
        XCTAssertEqual(F.started(early)[.prackTimeout], .seconds(32), "64·T1")

        XCTAssertTrue(bob.accept(now: .milliseconds(100)).isEmpty, "the 200 must not overtake an unacknowledged 183 with SDP")
        XCTAssertEqual(bob.state, .early)

        let again = bob.timerFired(.provisionalRetransmission, now: F.t1)
        XCTAssertEqual(try F.single(F.responses(again)), progress, "the same 183, same RSeq")
        XCTAssertEqual(F.started(again)[.provisionalRetransmission], .seconds(1), "the interval doubles")

        let heard = alice.receiveResponse(progress, now: F.t1)
        XCTAssertEqual(F.events(heard).count, 2, "early media and progress")
        let prack = try F.single(F.requests(heard))
        XCTAssertEqual(prack.method, .prack)
        XCTAssertEqual(try prack.headers.rack(), SIPRAck(responseNumber: rseq, sequence: 1, method: .invite))
        XCTAssertEqual(try prack.headers.cseq(), SIPCSeq(sequence: 2, method: .prack))
        XCTAssertEqual(try prack.headers.to().tag, bob.localTag, "in the early dialog")
        XCTAssertTrue(alice.receiveResponse(progress, now: .seconds(1)).isEmpty, "a retransmission is neither PRACKed nor reported again")

        let acknowledged = bob.receiveRequest(prack, now: .seconds(1))
        let answers = F.responses(acknowledged)
        XCTAssertEqual(answers.map(\.statusCode), [200, 200], "the PRACK's 200, then the INVITE's")
        XCTAssertEqual(try answers[0].headers.cseq().method, .prack)
        XCTAssertEqual(try answers[1].headers.cseq().method, .invite)
        XCTAssertEqual(answers[1].body, progress.body, "the 200 carries the answer the 183 gave")
        XCTAssertTrue(acknowledged.contains(.cancelTimer(.provisionalRetransmission)))
        XCTAssertTrue(acknowledged.contains(.cancelTimer(.prackTimeout)))
        XCTAssertEqual(bob.state, .connecting)
        XCTAssertTrue(bob.timerFired(.provisionalRetransmission, now: .seconds(2)).isEmpty, "nothing is resent after the PRACK")

        XCTAssertTrue(alice.receiveResponse(F.reply(prack, 200, toTag: bob.localTag), now: .seconds(1)).isEmpty)
        let established = alice.receiveResponse(answers[1], now: .seconds(1))
        XCTAssertEqual(F.acks(established).count, 1)
        XCTAssertEqual(alice.state, .confirmed)
        let bye = try F.single(F.requests(alice.hangUp(now: .seconds(2))))
        XCTAssertEqual(try bye.headers.cseq(), SIPCSeq(sequence: 3, method: .bye), "after the PRACK's CSeq")
    }

    func testA180GoesReliablyOnlyWhenTheCallerRequires100rel() throws {
        var alice = F.caller()
        let supporting = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(supporting)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        XCTAssertNil(try ringing.headers.rseq(), "a 180 without SDP to a caller that only supports 100rel goes as usual")
        XCTAssertFalse(ringing.headers.contains("require"))

        let (_, requiring) = try requiringInvite()
        var carol = F.callee(requiring)
        let reliable = try F.single(F.responses(carol.ring(now: .zero)))
        let first = try XCTUnwrap(try reliable.headers.rseq())
        XCTAssertTrue(reliable.headers.lists(optionTag: "100rel", in: "require"))
        // One in flight at a time (§3): the 183 waits for the 180's PRACK.
        XCTAssertTrue(carol.sendEarlyMedia(now: .milliseconds(10)).isEmpty)
        let acknowledged = carol.receiveRequest(
            SIPRequest(method: .prack, uri: requiring.uri, headers: prackHeaders(requiring, carol, cseq: 2, rack: "\(first) 1 INVITE")),
            now: .milliseconds(20))
        let sent = F.responses(acknowledged)
        XCTAssertEqual(sent.map(\.statusCode), [200, 183])
        XCTAssertEqual(try sent[1].headers.rseq(), first + 1, "RSeq counts up by one")
        XCTAssertEqual(F.started(acknowledged)[.provisionalRetransmission], F.t1)
    }

    func testNoPRACKWithin64T1RefusesTheInviteWith500() throws {
        let (_, invite) = try requiringInvite()
        var bob = F.callee(invite)
        _ = bob.ring(now: .zero)
        let expired = bob.timerFired(.prackTimeout, now: .seconds(32))
        let refusal = try F.single(F.responses(expired))
        XCTAssertEqual(refusal.statusCode, 500)
        XCTAssertEqual(F.events(expired), [.terminated(.provisionalNotAcknowledged)])
        XCTAssertTrue(expired.contains(.cancelTimer(.provisionalRetransmission)))
    }

    func testAPRACKNamingNothingGets481AndABadRAck400() throws {
        let (_, invite) = try requiringInvite()
        var bob = F.callee(invite)
        let rseq = try XCTUnwrap(try F.single(F.responses(bob.ring(now: .zero))).headers.rseq())
        for (rack, status) in [("\(rseq + 1) 1 INVITE", 481), ("\(rseq) 7 INVITE", 481), ("\(rseq) 1 UPDATE", 481), ("x 1 INVITE", 400), ("0 1 INVITE", 400)] {
            let answer = bob.receiveRequest(
                SIPRequest(method: .prack, uri: invite.uri, headers: prackHeaders(invite, bob, cseq: 2, rack: rack)), now: .zero)
            XCTAssertEqual(try F.single(F.responses(answer)).statusCode, status, rack)
            XCTAssertFalse(answer.contains(.cancelTimer(.provisionalRetransmission)), "\(rack) acknowledges nothing")
        }
        var missing = prackHeaders(invite, bob, cseq: 3, rack: "")
        missing.remove("rack")
        XCTAssertEqual(try F.single(F.responses(bob.receiveRequest(SIPRequest(method: .prack, uri: invite.uri, headers: missing), now: .zero))).statusCode, 400)
        XCTAssertEqual(bob.state, .early, "the call goes on")
    }

    func testAnOfferInAPRACKIsRefusedButTheProvisionalCountsAsAcknowledged() throws {
        let (_, invite) = try requiringInvite()
        var bob = F.callee(invite)
        let rseq = try XCTUnwrap(try F.single(F.responses(bob.sendEarlyMedia(now: .zero))).headers.rseq())
        var headers = prackHeaders(invite, bob, cseq: 2, rack: "\(rseq) 1 INVITE")
        headers.set("Content-Type", "application/sdp")
        let answer = bob.receiveRequest(SIPRequest(method: .prack, uri: invite.uri, headers: headers, body: invite.body), now: .zero)
        let refusal = try F.single(F.responses(answer))
        XCTAssertEqual(refusal.statusCode, 488)
        XCTAssertTrue(refusal.headers.contains("warning"))
        XCTAssertTrue(answer.contains(.cancelTimer(.provisionalRetransmission)), "the peer has the 183: no more resending")
        XCTAssertEqual(F.responses(bob.accept(now: .seconds(1))).map(\.statusCode), [200])
    }

    func testTheCallerAcknowledgesEachRSeqOnceAndInOrder() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        func reliable(_ code: Int, _ rseq: UInt32) -> SIPResponse {
            var response = F.reply(invite, code)
            response.headers.add("Require", "100rel")
            response.headers.add("RSeq", String(rseq))
            return response
        }
        let first = try F.single(F.requests(alice.receiveResponse(reliable(180, 42), now: .zero)))
        XCTAssertEqual(try first.headers.rack(), SIPRAck(responseNumber: 42, sequence: 1, method: .invite))
        XCTAssertTrue(alice.receiveResponse(reliable(183, 44), now: .zero).isEmpty, "44 before 43 is discarded")
        XCTAssertTrue(alice.receiveResponse(reliable(180, 42), now: .zero).isEmpty, "42 again is a retransmission")
        let next = alice.receiveResponse(reliable(183, 43), now: .zero)
        XCTAssertEqual(try F.single(F.requests(next)).headers.rack(), SIPRAck(responseNumber: 43, sequence: 1, method: .invite))
        XCTAssertEqual(try F.single(F.requests(next)).headers.cseq().sequence, 3)
        XCTAssertEqual(F.events(next), [.progress(statusCode: 183)])

        // Another fork's RSeq space is its own, and its PRACK goes in its own dialog.
        var fork = reliable(180, 7)
        fork.headers.set("To", "<sip:bob@bob.example.com>;tag=fork-2")
        let forkPRACK = try F.single(F.requests(alice.receiveResponse(fork, now: .zero)))
        XCTAssertEqual(try forkPRACK.headers.to().tag, "fork-2")
        XCTAssertEqual(try forkPRACK.headers.cseq().sequence, 2, "the fork's dialog counts from the INVITE")

        // Without an RSeq the 180 is not reliable: reported, not acknowledged.
        var plain = F.reply(invite, 180)
        plain.headers.add("Require", "100rel")
        XCTAssertEqual(F.events(alice.receiveResponse(plain, now: .zero)), [.ringing])
    }

    func testWithReliabilityOffA100relProvisionalIsTakenAsAnOrdinaryOne() throws {
        var off = F.alice
        off.reliableProvisionals = false
        var alice = F.caller(off)
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var ringing = F.reply(invite, 180)
        ringing.headers.add("Require", "100rel")
        ringing.headers.add("RSeq", "1")
        let heard = alice.receiveResponse(ringing, now: .zero)
        XCTAssertTrue(F.requests(heard).isEmpty, "no PRACK")
        XCTAssertEqual(F.events(heard), [.ringing])
    }

    func testRAckAndRSeqValues() throws {
        // RFC 3262 §7's examples.
        XCTAssertEqual(try SIPRAck(parsing: "776656 1 INVITE"), SIPRAck(responseNumber: 776_656, sequence: 1, method: .invite))
        XCTAssertEqual(try SIPRAck.responseNumber(parsing: " 988789 "), 988_789)
        XCTAssertEqual(SIPRAck(responseNumber: 5, sequence: 2, method: .invite).description, "5 2 INVITE")
        for bad in ["", "776656", "776656 1", "0 1 INVITE", "2147483648 1 INVITE", "1 2147483648 INVITE", "a 1 INVITE", "1 1 IN VITE", "1\t1\tINVITE x"] {
            XCTAssertThrowsError(try SIPRAck(parsing: bad), bad)
        }
        for bad in ["", "0", "-1", "2147483648", "12 34", "1a"] {
            XCTAssertThrowsError(try SIPRAck.responseNumber(parsing: bad), bad)
        }
        var twice = SIPHeaders()
        twice.add("RSeq", "1")
        twice.add("RSeq", "2")
        XCTAssertThrowsError(try twice.rseq())
    }

    /// A PRACK in `callee`'s early dialog with the caller's fields.
    private func prackHeaders(_ invite: SIPRequest, _ callee: SIPInviteSession, cseq: UInt32, rack: String) -> SIPHeaders {
        var headers = SIPHeaders()
        headers.add("Via", "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK-prack-\(cseq)")
        headers.add("Max-Forwards", "70")
        headers.add("From", invite.headers.first("from") ?? "")
        headers.add("To", "<sip:bob@bob.example.com>;tag=\(callee.localTag)")
        headers.add("Call-ID", invite.headers.first("call-id") ?? "")
        headers.add("CSeq", "\(cseq) PRACK")
        headers.add("RAck", rack)
        headers.add("Content-Length", "0")
        return headers
    }
}
