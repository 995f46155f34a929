import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceSIP

/// Our host changes networks during a call: the session tells the peer its new Contact and
/// media address with a re-INVITE, at once when confirmed, or as soon as it is.
final class SIPInviteSessionMoveTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    /// Alice's new address, 198.51.100.7.
    private func moveAlice(_ alice: inout SIPInviteSession, now: MediaTime = .seconds(5)) -> [SIPInviteSessionAction] {
        var via = SIPVia(transport: "UDP", host: "198.51.100.7", port: 5062)
        via.parameters.set("rport", nil)
        return alice.moveLocalAddress(
            contact: SIPURI(user: "alice", host: "198.51.100.7", port: 5062), via: via, mediaAddress: "198.51.100.7", now: now)
    }

    private func connectionAddress(_ body: [UInt8]) throws -> String? { try F.sdp(body).connection?.address }

    func testAConfirmedCallSendsAReINVITEWithTheNewContactAndAddress() throws {
        var (alice, bob) = try F.establishedCall()
        let reinvite = try F.single(F.requests(moveAlice(&alice)))
        XCTAssertEqual(reinvite.method, .invite)
        XCTAssertEqual(try reinvite.headers.cseq(), SIPCSeq(sequence: 2, method: .invite))
        XCTAssertEqual(try reinvite.headers.to().tag, bob.localTag, "same dialog")
        XCTAssertEqual(try reinvite.headers.callID(), bob.callID)
        XCTAssertEqual(reinvite.headers.first("contact"), "<sip:alice@198.51.100.7:5062>")
        XCTAssertEqual(try reinvite.headers.topVia().host, "198.51.100.7")
        let offer = try F.sdp(reinvite.body)
        XCTAssertEqual(offer.connection?.address, "198.51.100.7")
        XCTAssertEqual(offer.origin.address, "198.51.100.7")
        XCTAssertEqual(offer.origin.sessionVersion, 2, "the description changed")
        XCTAssertEqual(offer.media.first?.port, 4000, "the same port: the socket is bound to any address")
        XCTAssertEqual(try F.direction(reinvite.body), .sendrecv)

        // Bob takes the new target and media address; Alice gets the answer as mediaUpdated.
        let bobActions = bob.receiveRequest(reinvite, now: .seconds(5))
        guard case .mediaUpdated(let bobMedia)? = F.events(bobActions).last else { return XCTFail("no update for Bob") }
        XCTAssertEqual(bobMedia.remoteRTP, SDPTransportAddress(host: "198.51.100.7", port: 4000))
        let ok = try F.single(F.responses(bobActions))
        let aliceActions = alice.receiveResponse(ok, now: .seconds(5))
        XCTAssertEqual(F.acks(aliceActions).count, 1)
        guard case .mediaUpdated(let aliceMedia)? = F.events(aliceActions).last else { return XCTFail("no update for Alice") }
        XCTAssertEqual(aliceMedia.remoteRTP, SDPTransportAddress(host: "192.0.2.20", port: 6000))
        _ = bob.receiveRequest(try F.single(F.acks(aliceActions)), now: .seconds(5))

        // Bob's next request goes to the new target.
        let bye = try F.single(F.requests(bob.hangUp(now: .seconds(6))))
        XCTAssertEqual(bye.uri.description, "sip:alice@198.51.100.7:5062")
    }

    func testAMoveWhileOnHoldKeepsTheHold() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        let held = try F.single(F.responses(bob.receiveRequest(hold, now: .zero)))
        let ack = try F.single(F.acks(alice.receiveResponse(held, now: .zero)))
        _ = bob.receiveRequest(ack, now: .zero)
        let reinvite = try F.single(F.requests(moveAlice(&alice)))
        XCTAssertEqual(try F.direction(reinvite.body), .sendonly, "still on hold after the move")
        XCTAssertEqual(try connectionAddress(reinvite.body), "198.51.100.7")
    }

    func testAMoveDuringAnotherReINVITEWaitsForIt() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        XCTAssertEqual(try connectionAddress(hold.body), "192.0.2.10")
        XCTAssertEqual(moveAlice(&alice), [], "§14.1: one INVITE transaction at a time")
        let held = try F.single(F.responses(bob.receiveRequest(hold, now: .zero)))
        let actions = alice.receiveResponse(held, now: .zero)
        XCTAssertEqual(F.acks(actions).count, 1)
        let refresh = try F.single(F.requests(actions))
        XCTAssertEqual(try refresh.headers.cseq(), SIPCSeq(sequence: 3, method: .invite))
        XCTAssertEqual(try connectionAddress(refresh.body), "198.51.100.7")
        XCTAssertEqual(try F.direction(refresh.body), .sendonly, "the hold just agreed stays")
    }

    /// A caller that moves while its call rings refreshes the early dialog's target with an
    /// UPDATE without an offer (RFC 3311: the INVITE's offer is unanswered), so that the
    /// callee's requests reach the new address; once the call is confirmed, a re-INVITE moves
    /// the media (`c=`).
    func testACallerThatMovesWhileRingingSendsAnUpdateThenRefreshesOnceConfirmed() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        _ = alice.receiveResponse(ringing, now: .zero)
        let update = try F.single(F.requests(moveAlice(&alice, now: .seconds(1))))
        XCTAssertEqual(update.method, .update)
        XCTAssertEqual(update.headers.first("contact"), "<sip:alice@198.51.100.7:5062>")
        XCTAssertEqual(try update.headers.topVia().host, "198.51.100.7")
        XCTAssertTrue(update.body.isEmpty, "no offer: the INVITE's is not answered yet")
        XCTAssertEqual(try update.headers.to().tag, bob.localTag, "in the early dialog")
        let updated = try F.single(F.responses(bob.receiveRequest(update, now: .seconds(1))))
        XCTAssertEqual(updated.statusCode, 200)
        XCTAssertEqual(updated.headers.first("contact"), "<sip:bob@192.0.2.20:5060>", "a target refresh's 2xx carries Contact")
        XCTAssertEqual(F.events(alice.receiveResponse(updated, now: .seconds(1))), [])
        let ok = try F.single(F.responses(bob.accept(now: .seconds(2))))
        let actions = alice.receiveResponse(ok, now: .seconds(2))
        let ack = try F.single(F.acks(actions))
        XCTAssertEqual(F.events(actions).first.map { if case .established = $0 { true } else { false } }, true)
        let refresh = try F.single(F.requests(actions))
        XCTAssertEqual(refresh.method, .invite)
        XCTAssertEqual(refresh.headers.first("contact"), "<sip:alice@198.51.100.7:5062>")
        XCTAssertEqual(try connectionAddress(refresh.body), "198.51.100.7")
        _ = bob.receiveRequest(ack, now: .seconds(2))
        let refreshed = try F.single(F.responses(bob.receiveRequest(refresh, now: .seconds(2))))
        XCTAssertEqual(refreshed.statusCode, 200)
        XCTAssertEqual(bob.negotiatedMedia?.remoteRTP.host, "198.51.100.7")
    }

    func testACalleeThatMovesBeforeAnsweringAnswersFromTheNewAddress() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        _ = bob.ring(now: .zero)
        var via = SIPVia(transport: "UDP", host: "203.0.113.20", port: 5060)
        via.parameters.set("rport", nil)
        XCTAssertEqual(
            bob.moveLocalAddress(contact: SIPURI(user: "bob", host: "203.0.113.20", port: 5060), via: via, mediaAddress: "203.0.113.20", now: .seconds(1)),
            [])
        let ok = try F.single(F.responses(bob.accept(now: .seconds(2))))
        XCTAssertEqual(ok.headers.first("contact"), "<sip:bob@203.0.113.20:5060>")
        XCTAssertEqual(try connectionAddress(ok.body), "203.0.113.20")
        let ack = try F.single(F.acks(alice.receiveResponse(ok, now: .seconds(2))))
        XCTAssertEqual(ack.uri.description, "sip:bob@203.0.113.20:5060", "the ACK goes to the new target")
        XCTAssertEqual(F.requests(bob.receiveRequest(ack, now: .seconds(2))), [], "no refresh needed")
    }

    func testACalleeThatMovesBetweenItsOKAndTheACKRefreshesAfterTheACK() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        var via = SIPVia(transport: "UDP", host: "203.0.113.20", port: 5060)
        via.parameters.set("rport", nil)
        XCTAssertEqual(
            bob.moveLocalAddress(contact: SIPURI(user: "bob", host: "203.0.113.20", port: 5060), via: via, mediaAddress: "203.0.113.20", now: .zero),
            [])
        let ack = try F.single(F.acks(alice.receiveResponse(ok, now: .zero)))
        let refresh = try F.single(F.requests(bob.receiveRequest(ack, now: .zero)))
        XCTAssertEqual(refresh.headers.first("contact"), "<sip:bob@203.0.113.20:5060>")
        XCTAssertEqual(try connectionAddress(refresh.body), "203.0.113.20")
    }

    /// The callee's side of the early UPDATE: its next request (a BYE when it hangs up after
    /// answering, say) goes to the caller's new Contact, not the INVITE's.
    func testAnEarlyUpdateMovesTheCalleesTarget() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        _ = alice.receiveResponse(try F.single(F.responses(bob.ring(now: .zero))), now: .zero)
        let update = try F.single(F.requests(moveAlice(&alice, now: .seconds(1))))
        _ = alice.receiveResponse(try F.single(F.responses(bob.receiveRequest(update, now: .seconds(1)))), now: .seconds(1))
        let ok = try F.single(F.responses(bob.accept(now: .seconds(2))))
        let actions = alice.receiveResponse(ok, now: .seconds(2))
        _ = bob.receiveRequest(try F.single(F.acks(actions)), now: .seconds(2))
        let bye = try F.single(F.requests(bob.hangUp(now: .seconds(3))))
        XCTAssertEqual(bye.uri.description, "sip:alice@198.51.100.7:5062")
    }

    /// An UPDATE in a confirmed call: without a body it only moves the target; with an offer it
    /// is answered in its 2xx and the media follows; while our own re-INVITE is outstanding it
    /// gets 491 (RFC 3311 §5.2); a body that is not SDP gets 415.
    func testAnUpdateInAConfirmedCallIsATargetRefreshAndMayCarryAnOffer() throws {
        var (alice, bob) = try F.establishedCall()
        var movedBob = bob
        var via = SIPVia(transport: "UDP", host: "203.0.113.20", port: 5060)
        via.parameters.set("rport", nil)
        // Bob's move offers his new address; sent as an UPDATE, as a peer that prefers UPDATE to
        // re-INVITE does.
        let reinvite = try F.single(
            F.requests(
                movedBob.moveLocalAddress(
                    contact: SIPURI(user: "bob", host: "203.0.113.20", port: 5060), via: via, mediaAddress: "203.0.113.20", now: .zero)))
        var update = reinvite
        update.method = .update
        update.headers.remove("cseq")
        update.headers.add("CSeq", "3 UPDATE")
        let actions = alice.receiveRequest(update, now: .zero)
        let ok = try F.single(F.responses(actions))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertFalse(ok.body.isEmpty, "the answer is in the 2xx")
        guard case .mediaUpdated(let media)? = F.events(actions).last else { return XCTFail("no media update") }
        XCTAssertEqual(media.remoteRTP.host, "203.0.113.20")
        XCTAssertEqual(try F.single(F.requests(alice.hangUp(now: .seconds(1)))).uri.description, "sip:bob@203.0.113.20:5060")
        // While Alice's own re-INVITE is outstanding, an offer in UPDATE is refused with 491.
        var (carol, dave) = try F.establishedCall()
        _ = try F.single(F.requests(carol.hold(now: .zero)))
        var offer = try F.single(F.requests(dave.refresh(now: .zero)))
        XCTAssertFalse(offer.body.isEmpty)
        offer.method = .update
        offer.headers.remove("cseq")
        offer.headers.add("CSeq", "3 UPDATE")
        XCTAssertEqual(try F.single(F.responses(carol.receiveRequest(offer, now: .zero))).statusCode, 491)
        // Without a body: 200 with our Contact, and the target refreshed.
        var (eve, frank) = try F.establishedCall()
        let bare = try XCTUnwrap(frank.makeDialogRequest(.update))
        XCTAssertTrue(bare.body.isEmpty)
        let answered = eve.receiveRequest(bare, now: .zero)
        XCTAssertEqual(F.events(answered), [])
        let refreshed = try F.single(F.responses(answered))
        XCTAssertEqual(refreshed.statusCode, 200)
        XCTAssertNotNil(refreshed.headers.first("contact"))
    }
}
