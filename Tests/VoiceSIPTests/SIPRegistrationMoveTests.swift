import VoiceSupport
import XCTest

@testable import VoiceSIP

/// A registered client changes networks: the next REGISTER binds the new Contact and removes
/// the old binding in the same request.
final class SIPRegistrationMoveTests: XCTestCase {
    private let oldContact = SIPURI(user: "alice", host: "192.0.2.10", port: 5060)
    private let newContact = SIPURI(user: "alice", host: "198.51.100.7", port: 5060)

    private func via(_ host: String) -> SIPVia {
        var via = SIPVia(transport: "UDP", host: host, port: 5060)
        via.parameters.set("rport", nil)
        return via
    }

    private func makeRegistration() -> SIPRegistration {
        var rng = SeededGenerator(seed: 7)
        let configuration = SIPRegistration.Configuration(
            registrar: SIPURI(host: "example.com"),
            addressOfRecord: SIPNameAddress(uri: SIPURI(user: "alice", host: "example.com")),
            contact: oldContact, via: via("192.0.2.10"), expires: 3600, credentials: [], userAgent: nil)
        return SIPRegistration(configuration: configuration, using: &rng, cnonce: { "0a4f113b" })
    }

    private func request(_ actions: [SIPRegistrationAction]) throws -> SIPRequest {
        let requests = actions.compactMap { if case .sendRequest(let r) = $0 { r } else { nil } }
        XCTAssertEqual(requests.count, 1, "\(actions)")
        return try XCTUnwrap(requests.first)
    }

    private func ok(_ request: SIPRequest, contacts: String? = nil) -> SIPResponse {
        var response = SIPResponse(replyingTo: request, statusCode: 200, toTag: "srv1")
        if let contacts { response.headers.add("Contact", contacts) }
        return response
    }

    func testARegisteredClientRebindsAtOnceAndRemovesTheOldContact() throws {
        var registration = makeRegistration()
        let first = try request(registration.register(now: .zero))
        _ = registration.receiveResponse(ok(first, contacts: "<sip:alice@192.0.2.10:5060>;expires=3600"), now: .zero)
        XCTAssertEqual(registration.state, .registered(expires: 3600))

        let actions = registration.moveContact(newContact, via: via("198.51.100.7"), now: .seconds(60))
        XCTAssertTrue(actions.contains(.cancelTimer(.refresh)))
        let move = try request(actions)
        XCTAssertEqual(try move.headers.cseq().sequence, 2)
        XCTAssertEqual(try move.headers.callID(), registration.callID, "the same registration (§10.2.4)")
        XCTAssertEqual(move.headers["contact"], ["<sip:alice@198.51.100.7:5060>", "<sip:alice@192.0.2.10:5060>;expires=0"])
        XCTAssertEqual(try move.headers.topVia().host, "198.51.100.7")

        let events = registration.receiveResponse(ok(move, contacts: "<sip:alice@198.51.100.7:5060>;expires=3600"), now: .seconds(60))
        XCTAssertTrue(events.contains(.event(.registered(expires: 3600))))
        // The old binding is gone: the refresh no longer mentions it.
        let refresh = try request(registration.timerFired(.refresh, now: .seconds(3_000)))
        XCTAssertEqual(refresh.headers["contact"], ["<sip:alice@198.51.100.7:5060>"])
    }

    func testAMoveDuringAREGISTERInFlightRefreshesRightAfterIt() throws {
        var registration = makeRegistration()
        let first = try request(registration.register(now: .zero))
        XCTAssertEqual(registration.moveContact(newContact, via: via("198.51.100.7"), now: .milliseconds(10)), [])
        let actions = registration.receiveResponse(ok(first), now: .milliseconds(20))
        XCTAssertTrue(actions.contains(.event(.registered(expires: 3600))))
        let move = try request(actions)
        XCTAssertEqual(move.headers["contact"], ["<sip:alice@198.51.100.7:5060>", "<sip:alice@192.0.2.10:5060>;expires=0"])
    }

    func testAFailedMoveKeepsRemovingTheOldContactOnRetry() throws {
        var registration = makeRegistration()
        let first = try request(registration.register(now: .zero))
        _ = registration.receiveResponse(ok(first), now: .zero)
        let move = try request(registration.moveContact(newContact, via: via("198.51.100.7"), now: .seconds(1)))
        _ = registration.requestFailed(failure: .transactionTimeout, now: .seconds(33))
        guard case .waitingToRetry = registration.state else { return XCTFail("\(registration.state)") }
        let retry = try request(registration.timerFired(.retry, now: .seconds(60)))
        XCTAssertEqual(retry.headers["contact"], move.headers["contact"])
    }

    func testNothingIsSentWhenNotRegisteredOrTheContactDidNotChange() throws {
        var registration = makeRegistration()
        XCTAssertEqual(registration.moveContact(newContact, via: via("198.51.100.7"), now: .zero), [])
        let first = try request(registration.register(now: .zero))
        XCTAssertEqual(first.headers["contact"], ["<sip:alice@198.51.100.7:5060>"], "never bound: nothing to remove")
        _ = registration.receiveResponse(ok(first), now: .zero)
        XCTAssertEqual(registration.moveContact(newContact, via: via("198.51.100.7"), now: .seconds(1)), [])
    }
}
