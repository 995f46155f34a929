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

    func testACallerThatMovesWhileRingingRefreshesOnceConfirmed() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        _ = alice.receiveResponse(ringing, now: .zero)
        XCTAssertEqual(moveAlice(&alice, now: .seconds(1)), [], "nothing to send in the early dialog")
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
}
