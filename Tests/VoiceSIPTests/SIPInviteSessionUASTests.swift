import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceSIP

/// The callee's side: ringing, answering with 2xx retransmissions until the ACK, the ACK
/// timeout, CANCEL, rejections, offerless INVITEs.
final class SIPInviteSessionUASTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    private func incoming(
        aliceConfiguration: SIPInviteSession.Configuration = F.alice, bobConfiguration: SIPInviteSession.Configuration = F.bob
    ) throws -> (alice: SIPInviteSession, invite: SIPRequest, bob: SIPInviteSession) {
        var alice = F.caller(aliceConfiguration)
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        return (alice, invite, F.callee(invite, bobConfiguration))
    }

    func testRingingAndOKCarryTagContactAndAnswer() throws {
        var (_, invite, bob) = try incoming()
        XCTAssertEqual(bob.state, .incoming)
        XCTAssertEqual(bob.callID, try invite.headers.callID())
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        XCTAssertEqual(ringing.statusCode, 180)
        XCTAssertEqual(ringing.reasonPhrase, "Ringing")
        XCTAssertEqual(try ringing.headers.to().tag, bob.localTag)
        XCTAssertEqual(ringing.headers["via"], invite.headers["via"])
        XCTAssertEqual(try ringing.headers.cseq(), SIPCSeq(sequence: 1, method: .invite))
        XCTAssertEqual(ringing.headers.first("contact"), "<sip:bob@192.0.2.20:5060>")
        XCTAssertEqual(bob.state, .early)

        let actions = bob.accept(now: .zero)
        let ok = try F.single(F.responses(actions))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(try ok.headers.to().tag, bob.localTag)
        XCTAssertEqual(ok.headers.first("contact"), "<sip:bob@192.0.2.20:5060>")
        XCTAssertEqual(ok.headers.first("allow"), "INVITE, ACK, BYE, CANCEL, OPTIONS, INFO, UPDATE, PRACK, REFER, NOTIFY")
        XCTAssertEqual(ok.headers.first("content-type"), "application/sdp")
        XCTAssertEqual(try ok.headers.contentLength(), ok.body.count)
        XCTAssertEqual(try F.sdp(ok.body).media.first?.port, 6000)
        XCTAssertEqual(try F.direction(ok.body), .sendrecv)
        XCTAssertEqual(
            F.started(actions), [.okRetransmission: .milliseconds(500), .ackTimeout: .milliseconds(32_000), .sessionExpiry: .seconds(1_768)],
            "the caller refreshes the session; it expires here without a refresh")
        XCTAssertEqual(bob.state, .connecting)
        XCTAssertEqual(bob.dialogID?.remoteTag, try invite.headers.from().tag)
        XCTAssertNotNil(bob.negotiatedMedia)
        // The media may start with the 2xx; the call is up only with the ACK.
        guard case .answered(let media)? = F.events(actions).last else { return XCTFail("\(F.events(actions))") }
        XCTAssertEqual(media, bob.negotiatedMedia)
        XCTAssertFalse(F.events(actions).contains { if case .established = $0 { true } else { false } })
    }

    func testDialogCreatingResponsesCopyRecordRouteInOrder() throws {
        var (_, invite, _) = try incoming()
        invite.headers.add("Record-Route", "<sip:p2.example.com;lr>")
        invite.headers.add("Record-Route", "<sip:p1.example.com;lr;ftag=x>")
        var bob = F.callee(invite)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        for response in [ringing, ok] {
            XCTAssertEqual(response.headers["record-route"], ["<sip:p2.example.com;lr>", "<sip:p1.example.com;lr;ftag=x>"])
        }
        XCTAssertEqual(bob.currentDialog?.routeSet.map(\.uri.host), ["p2.example.com", "p1.example.com"])
    }

    func testOKRetransmittedAtDoublingIntervalsCappedAtT2UntilACK() throws {
        var (alice, _, bob) = try incoming()
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        var now = MediaTime.zero
        var intervals: [Int64] = []
        var interval = MediaTime.milliseconds(500)
        for _ in 0..<6 {
            now += interval
            let actions = bob.timerFired(.okRetransmission, now: now)
            XCTAssertEqual(F.responses(actions), [ok], "the same 2xx")
            guard let next = F.started(actions)[.okRetransmission] else { return XCTFail("no restart") }
            intervals.append(next.nanoseconds / 1_000_000)
            interval = next
        }
        XCTAssertEqual(intervals, [1000, 2000, 4000, 4000, 4000, 4000])
        let ack = try F.single(F.acks(alice.receiveResponse(ok, now: now)))
        let actions = bob.receiveRequest(ack, now: now)
        XCTAssertEqual(Array(actions.prefix(2)), [.cancelTimer(.okRetransmission), .cancelTimer(.ackTimeout)])
        XCTAssertEqual(bob.state, .confirmed)
        // A late timer or a repeated ACK does nothing.
        XCTAssertEqual(bob.timerFired(.okRetransmission, now: now + interval), [])
        XCTAssertEqual(bob.receiveRequest(ack, now: now), [])
    }

    func testNoACKWithin64T1SendsBYEAndEnds() throws {
        var (alice, invite, bob) = try incoming()
        _ = bob.accept(now: .zero)
        let actions = bob.timerFired(.ackTimeout, now: .seconds(32))
        let bye = try F.single(F.requests(actions))
        XCTAssertEqual(bye.method, .bye)
        XCTAssertEqual(bye.uri.description, "sip:alice@192.0.2.10:5060", "to the INVITE's Contact")
        XCTAssertEqual(try bye.headers.cseq(), SIPCSeq(sequence: 1, method: .bye))
        XCTAssertEqual(try bye.headers.from().tag, bob.localTag)
        XCTAssertEqual(try bye.headers.to().tag, try invite.headers.from().tag)
        XCTAssertEqual(try bye.headers.callID(), alice.callID)
        XCTAssertTrue(actions.contains(.cancelTimer(.okRetransmission)))
        XCTAssertEqual(F.events(actions), [.terminated(.ackTimeout)])
        XCTAssertEqual(bob.state, .terminated(.ackTimeout))
        // Alice, who never got the 2xx, answers the BYE (481 as no dialog exists for her).
        XCTAssertEqual(F.responses(alice.receiveRequest(bye, now: .seconds(32))).map(\.statusCode), [481])
    }

    func testCancelBeforeAnswerGets200And487() throws {
        var (alice, invite, bob) = try incoming()
        _ = bob.ring(now: .zero)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        _ = alice.receiveResponse(ringing, now: .zero)
        let cancel = try F.single(F.requests(alice.hangUp(now: .zero)))
        let actions = bob.receiveRequest(cancel, now: .zero)
        let responses = F.responses(actions)
        XCTAssertEqual(responses.map(\.statusCode), [200, 487])
        guard responses.count == 2 else { return }
        XCTAssertEqual(try responses[0].headers.cseq(), SIPCSeq(sequence: 1, method: .cancel))
        XCTAssertEqual(try responses[1].headers.cseq(), SIPCSeq(sequence: 1, method: .invite))
        XCTAssertEqual(try responses[1].headers.topVia().branch, try invite.headers.topVia().branch)
        XCTAssertEqual(try responses[1].headers.to().tag, bob.localTag)
        XCTAssertEqual(F.events(actions), [.terminated(.cancelledByRemote)])
        XCTAssertEqual(bob.accept(now: .zero), [], "too late")
        XCTAssertEqual(F.events(alice.receiveResponse(responses[1], now: .zero)).last, .terminated(.cancelledByLocal))
    }

    func testCancelAfterAnswerIsHarmless() throws {
        var (alice, _, bob) = try incoming()
        _ = alice.receiveResponse(try F.single(F.responses(bob.ring(now: .zero))), now: .zero)
        let cancel = try F.single(F.requests(alice.hangUp(now: .zero)))
        _ = bob.accept(now: .zero)
        XCTAssertEqual(F.responses(bob.receiveRequest(cancel, now: .zero)).map(\.statusCode), [200])
        XCTAssertEqual(bob.state, .connecting)
    }

    func testRejectAndHangUpBeforeAnswer() throws {
        var (_, invite, bob) = try incoming()
        let actions = bob.reject(statusCode: 486, now: .zero)
        let busy = try F.single(F.responses(actions))
        XCTAssertEqual(busy.statusCode, 486)
        XCTAssertEqual(busy.reasonPhrase, "Busy Here")
        XCTAssertEqual(try busy.headers.to().tag, bob.localTag)
        XCTAssertNil(busy.headers.first("contact"))
        XCTAssertEqual(F.events(actions), [.terminated(.declined(statusCode: 486))])

        var other = F.callee(invite)
        _ = other.ring(now: .zero)
        let hungUp = other.hangUp(now: .zero)
        XCTAssertEqual(F.responses(hungUp).map(\.statusCode), [603])
        XCTAssertEqual(F.events(hungUp), [.terminated(.localHangUp)])

        var odd = F.callee(invite)
        XCTAssertEqual(F.responses(odd.reject(statusCode: 200, now: .zero)).map(\.statusCode), [603], "not a rejection code")
    }

    func testOfferWeCannotAnswerGets488() throws {
        var bobConfiguration = F.bob
        bobConfiguration.capabilities.encryption = .required
        var (_, _, bob) = try incoming(bobConfiguration: bobConfiguration)
        let actions = bob.accept(now: .zero)
        XCTAssertEqual(F.responses(actions).map(\.statusCode), [488])
        XCTAssertEqual(F.events(actions), [.terminated(.mediaNegotiationFailed(.encryptionRequired))])
    }

    func testSRTPCallAgreesOnKeys() throws {
        var alice = F.alice
        alice.capabilities.encryption = .required
        var bob = F.bob
        bob.capabilities.encryption = .required
        let call = try F.establishedCall(aliceConfiguration: alice, bobConfiguration: bob)
        let a = try XCTUnwrap(call.alice.negotiatedMedia)
        let b = try XCTUnwrap(call.bob.negotiatedMedia)
        XCTAssertNotNil(a.localKey)
        XCTAssertEqual(a.localKey, b.remoteKey)
        XCTAssertEqual(a.remoteKey, b.localKey)
    }

    func testOfferlessInviteOffersInOKAndTakesAnswerFromACK() throws {
        let (_, invite, _) = try incoming()
        var bare = invite
        bare.body = []
        bare.headers.remove("content-type")
        bare.headers.set("Content-Length", "0")
        var bob = F.callee(bare)
        let accepted = bob.accept(now: .zero)
        let ok = try F.single(F.responses(accepted))
        XCTAssertEqual(try F.direction(ok.body), .sendrecv, "the 2xx carries Bob's offer")
        XCTAssertEqual(F.events(accepted), [], "nothing is negotiated before the ACK's answer: no media yet")
        // Answer Bob's offer as a caller that sent no offer would.
        var answerer = SDPOfferAnswer(capabilities: F.alice.capabilities)
        let answer = try answerer.receiveOffer(try F.sdp(ok.body)).answer
        var dialog = try SIPDialog(request: bare, response: ok)
        var ack = dialog.makeACK(forInviteCSeq: 1, via: SIPVia(transport: "UDP", host: "192.0.2.10", branch: "z9hG4bKack1"))
        ack.body = Array(answer.text.utf8)
        ack.headers.set("Content-Type", "application/sdp")
        ack.headers.set("Content-Length", String(ack.body.count))
        _ = dialog.makeRequest(method: .info, via: SIPVia(transport: "UDP", host: "x", branch: "z9hG4bKi"))
        let actions = bob.receiveRequest(ack, now: .zero)
        guard case .established(let media)? = F.events(actions).last else { return XCTFail("not established") }
        XCTAssertEqual(media.remoteRTP, SDPTransportAddress(host: "192.0.2.10", port: 4000))
    }

    func testOfferlessInviteWithAnswerlessACKEnds() throws {
        let (_, invite, _) = try incoming()
        var bare = invite
        bare.body = []
        bare.headers.remove("content-type")
        bare.headers.set("Content-Length", "0")
        var bob = F.callee(bare)
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        let dialog = try SIPDialog(request: bare, response: ok)
        let ack = dialog.makeACK(forInviteCSeq: 1, via: SIPVia(transport: "UDP", host: "192.0.2.10", branch: "z9hG4bKack1"))
        let actions = bob.receiveRequest(ack, now: .zero)
        XCTAssertEqual(F.requests(actions).map(\.method), [.bye])
        guard case .terminated(.mediaNegotiationFailed)? = F.events(actions).last else { return XCTFail("not ended") }
    }

    func testMalformedInviteIsRefusedWith400() throws {
        var (_, invite, _) = try incoming()
        invite.headers.remove("contact")
        var bob = F.callee(invite)
        let actions = bob.accept(now: .zero)
        XCTAssertEqual(F.responses(actions).map(\.statusCode), [400])
        XCTAssertEqual(F.events(actions), [.terminated(.declined(statusCode: 400))])
        // No Call-ID at all: still no trap.
        var worse = invite
        worse.headers.remove("call-id")
        var broken = F.callee(worse)
        XCTAssertEqual(F.responses(broken.ring(now: .zero)).map(\.statusCode), [400])
    }

    func testHangUpBetweenOKAndACKWaitsForTheACK() throws {
        var (alice, _, bob) = try incoming()
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        XCTAssertEqual(bob.hangUp(now: .zero), [], "§15: no BYE before the ACK")
        XCTAssertEqual(bob.state, .terminating)
        let ack = try F.single(F.acks(alice.receiveResponse(ok, now: .zero)))
        let actions = bob.receiveRequest(ack, now: .zero)
        let bye = try F.single(F.requests(actions))
        XCTAssertEqual(bye.method, .bye)
        let reply = try F.single(F.responses(alice.receiveRequest(bye, now: .zero)))
        XCTAssertEqual(reply.statusCode, 200)
        XCTAssertEqual(F.events(bob.receiveResponse(reply, now: .zero)), [.terminated(.localHangUp)])
        XCTAssertEqual(alice.state, .terminated(.remoteHangUp))
    }

    func testNonSDPBodyGets415() throws {
        var (alice, invite, _) = try incoming()
        XCTAssertTrue(alice.isOutgoing)
        invite.headers.set("Content-Type", "text/plain")
        var bob = F.callee(invite)
        XCTAssertFalse(bob.isOutgoing)
        let actions = bob.accept(now: .zero)
        let reply = try F.single(F.responses(actions))
        XCTAssertEqual(reply.statusCode, 415)
        XCTAssertEqual(reply.headers.first("accept"), "application/sdp")
        XCTAssertEqual(F.events(actions), [.terminated(.declined(statusCode: 415))])
    }
}
