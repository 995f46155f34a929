import VoiceSupport
import XCTest

@testable import VoiceSIP

/// RFC 3261 §8.1.3.4 redirects as the session follows them: the Contacts of a 3xx in q order,
/// a failed target handing over to the next, loops and runaway chains stopped.
final class SIPInviteSessionRedirectTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    private func redirect(_ request: SIPRequest, _ code: Int, contacts: [String]) -> SIPResponse {
        var response = F.reply(request, code)
        for contact in contacts { response.headers.add("Contact", contact) }
        return response
    }

    private func redirected(_ actions: [SIPInviteSessionAction]) -> [SIPURI] {
        F.events(actions).compactMap { if case .redirected(_, let to) = $0 { to } else { nil } }
    }

    func testA302SendsTheSameOfferOnToItsContactInTheSameCall() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        let actions = alice.receiveResponse(redirect(invite, 302, contacts: ["<sip:bob@192.0.2.99:5070>"]), now: .zero)
        let next = try F.single(F.requests(actions))
        XCTAssertEqual(next.uri.description, "sip:bob@192.0.2.99:5070")
        XCTAssertEqual(F.events(actions), [.redirected(statusCode: 302, to: next.uri)])
        XCTAssertEqual(try next.headers.callID(), try invite.headers.callID())
        XCTAssertEqual(try next.headers.from(), try invite.headers.from(), "From with its tag")
        XCTAssertEqual(next.headers.first("to"), invite.headers.first("to"), "To as first asked, no tag")
        XCTAssertEqual(try next.headers.cseq(), SIPCSeq(sequence: 2, method: .invite))
        XCTAssertNotEqual(try next.headers.topVia().branch, try invite.headers.topVia().branch)
        XCTAssertEqual(next.body, invite.body, "the same offer")
        XCTAssertEqual(alice.state, .calling)
        // The new target answers: the call is up as any other.
        var bob = F.callee(next)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        XCTAssertEqual(F.events(alice.receiveResponse(ringing, now: .zero)), [.ringing])
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        XCTAssertTrue(F.events(alice.receiveResponse(ok, now: .zero)).contains { if case .established = $0 { true } else { false } })
    }

    func testContactsAreTriedBestQFirstAndAFailedOneHandsOverToTheNext() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        let contacts = ["<sip:low@192.0.2.1>;q=0.1", "<sip:first@192.0.2.2>", "<sip:high@192.0.2.3>;q=0.9", "<tel:+15550100>", "<sip:second@192.0.2.4>;q=1.0"]
        let first = try F.single(F.requests(alice.receiveResponse(redirect(invite, 300, contacts: contacts), now: .zero)))
        XCTAssertEqual(first.uri.user, "first", "no q counts as 1; equal q keep their order")
        let second = try F.single(F.requests(alice.receiveResponse(F.reply(first, 486), now: .zero)))
        XCTAssertEqual(second.uri.user, "second")
        // No answer from the second: the next.
        let third = try F.single(F.requests(alice.requestFailed(method: .invite, cseq: 3, failure: .transactionTimeout, now: .seconds(32))))
        XCTAssertEqual(third.uri.user, "high")
        let fourth = try F.single(F.requests(alice.receiveResponse(F.reply(third, 404), now: .seconds(33))))
        XCTAssertEqual(fourth.uri.user, "low", "tel: is skipped")
        let last = alice.receiveResponse(F.reply(fourth, 603), now: .seconds(33))
        XCTAssertEqual(F.events(last), [.terminated(.rejected(statusCode: 603))], "the last target's answer ends the call")
    }

    func testAChainIsFollowedNewestFirstAndALoopOrARunawayChainEnds() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var current = try F.single(F.requests(alice.receiveResponse(redirect(invite, 302, contacts: ["<sip:a@192.0.2.1>", "<sip:b@192.0.2.2>"]), now: .zero)))
        XCTAssertEqual(current.uri.user, "a")
        current = try F.single(F.requests(alice.receiveResponse(redirect(current, 302, contacts: ["<sip:c@192.0.2.3>"]), now: .zero)))
        XCTAssertEqual(current.uri.user, "c", "the newest redirect goes first")
        // c points back at a and at the original target: both tried, so b (still waiting) is next.
        current = try F.single(F.requests(alice.receiveResponse(
            redirect(current, 302, contacts: ["<sip:a@192.0.2.1>", "<sip:bob@bob.example.com>"]), now: .zero)))
        XCTAssertEqual(current.uri.user, "b")
        let loop = alice.receiveResponse(redirect(current, 302, contacts: ["<sip:c@192.0.2.3>", "<sip:a@192.0.2.1>"]), now: .zero)
        XCTAssertEqual(F.events(loop), [.terminated(.redirectFailed(.loop(statusCode: 302)))])

        var runaway = F.caller()
        var request = try F.single(F.requests(runaway.start(now: .zero)))
        for hop in 1...SIPRedirects.maximumRedirects {
            request = try F.single(F.requests(runaway.receiveResponse(redirect(request, 301, contacts: ["<sip:hop\(hop)@192.0.2.\(hop)>"]), now: .zero)))
        }
        let stopped = runaway.receiveResponse(redirect(request, 301, contacts: ["<sip:hop9@192.0.2.9>"]), now: .zero)
        XCTAssertEqual(F.events(stopped), [.terminated(.redirectFailed(.tooManyRedirects(statusCode: 301)))])
    }

    func testARedirectWithNothingToCallEndsTheCallWithItsStatus() throws {
        for contacts in [[], ["*"], ["<tel:+15550100>"], ["not a contact"]] {
            var alice = F.caller()
            let invite = try F.single(F.requests(alice.start(now: .zero)))
            let actions = alice.receiveResponse(redirect(invite, 302, contacts: contacts), now: .zero)
            XCTAssertEqual(F.events(actions), [.terminated(.redirectFailed(.noUsableContact(statusCode: 302)))], "\(contacts)")
            XCTAssertTrue(F.requests(actions).isEmpty)
        }
    }

    func testAHostileRedirectKeepsABoundedList() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        let many = (0..<1_000).map { "<sip:u\($0)@192.0.2.1>" }
        var request = try F.single(F.requests(alice.receiveResponse(redirect(invite, 302, contacts: many), now: .zero)))
        var tried = 1
        while case let next? = F.requests(alice.receiveResponse(F.reply(request, 404), now: .zero)).first {
            request = next
            tried += 1
        }
        XCTAssertEqual(tried, SIPRedirects.maximumWaiting, "at most this many of one 3xx's Contacts are tried")
    }

    func testHangingUpWhileRedirectedCancelsTheCurrentTarget() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        let next = try F.single(F.requests(alice.receiveResponse(redirect(invite, 302, contacts: ["<sip:bob@192.0.2.99>"]), now: .zero)))
        XCTAssertTrue(F.requests(alice.hangUp(now: .zero)).isEmpty, "no provisional yet: the CANCEL waits")
        let cancel = try F.single(F.requests(alice.receiveResponse(F.reply(next, 180, toTag: "t"), now: .zero)))
        XCTAssertEqual(cancel.method, .cancel)
        XCTAssertEqual(cancel.uri, next.uri, "the redirected INVITE is the one cancelled")
    }
}
