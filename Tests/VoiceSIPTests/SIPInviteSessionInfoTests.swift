import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceSIP

/// INFO beyond the basics: extra header fields, results identified by their request through
/// challenges and failures, INFO in the early dialog, and requests lost with their connection.
final class SIPInviteSessionInfoTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    private let json = Array(#"{"order":42}"#.utf8)

    func testExtraHeadersTravelAndTheReceiverSeesThem() throws {
        var (alice, bob) = try F.establishedCall()
        let extra = SIPHeaders([("X-Twilio-VoiceEventSid", "KX0123"), ("X-Twilio-MessageType", "user-defined-message")])
        let info = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, headers: extra, now: .zero)))
        XCTAssertEqual(info.headers.first("x-twilio-voiceeventsid"), "KX0123")
        XCTAssertEqual(info.headers.first("X-Twilio-MessageType"), "user-defined-message")
        XCTAssertEqual(info.headers.first("content-type"), "application/json")
        let actions = bob.receiveRequest(info, now: .zero)
        XCTAssertEqual(F.responses(actions).map(\.statusCode), [200])
        guard case .infoReceived(let type, let body, let headers)? = F.events(actions).first else {
            return XCTFail("no INFO event: \(F.events(actions))")
        }
        XCTAssertEqual(type, "application/json")
        XCTAssertEqual(body, json)
        XCTAssertEqual(headers.first("X-Twilio-VoiceEventSid"), "KX0123")
    }

    func testExtraHeadersTheSessionManagesOrThatCouldBreakTheMessageAreRefused() throws {
        var (alice, _) = try F.establishedCall()
        for (name, value) in [
            ("CSeq", "9 INFO"), ("t", "<sip:mallory@example.com>"), ("Content-Length", "0"), ("Via", "SIP/2.0/UDP x"),
            ("X Bad", "1"), ("", "1"), ("X-Ok", "line\r\nInjected: 1"), ("X-Ok", "nul\u{0}"),
        ] {
            XCTAssertThrowsError(
                try alice.sendInfo(contentType: "application/json", body: json, headers: SIPHeaders([(name, value)]), now: .zero),
                "\(name): \(value)"
            ) { XCTAssertEqual($0 as? SIPInviteSessionError, .invalidHeader) }
        }
        XCTAssertNoThrow(
            try alice.sendInfo(contentType: "application/json", body: json, headers: SIPHeaders([("X-Tab", "a\tb")]), now: .zero))
    }

    func testChallengedInfoIsResentWithItsHeadersAndReportsItsFirstCSeq() throws {
        var config = F.alice
        config.credentials = [SIPAuthCredentials(username: "alice", password: "secret")]
        var (alice, _) = try F.establishedCall(aliceConfiguration: config)
        let extra = SIPHeaders([("X-Twilio-VoiceEventSid", "KXfirst")])
        let info = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, headers: extra, now: .zero)))
        XCTAssertEqual(try info.headers.cseq().sequence, 2)
        var challenge = F.reply(info, 401, toTag: nil)
        challenge.headers.add("WWW-Authenticate", #"Digest realm="biloxi.example.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093""#)
        let retry = try F.single(F.requests(alice.receiveResponse(challenge, now: .zero)))
        XCTAssertEqual(try retry.headers.cseq(), SIPCSeq(sequence: 3, method: .info))
        XCTAssertNotNil(retry.headers.first("authorization"))
        XCTAssertEqual(retry.headers.first("X-Twilio-VoiceEventSid"), "KXfirst")
        XCTAssertEqual(retry.body, json)
        // Another INFO goes out meanwhile; each result names the request sendInfo returned.
        let second = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, now: .zero)))
        XCTAssertEqual(try second.headers.cseq().sequence, 4)
        XCTAssertEqual(
            F.events(alice.receiveResponse(F.reply(second, 488, toTag: nil), now: .zero)), [.infoResult(cseq: 4, statusCode: 488)])
        XCTAssertEqual(
            F.events(alice.receiveResponse(F.reply(retry, 200, toTag: nil), now: .zero)), [.infoResult(cseq: 2, statusCode: 200)])
    }

    func testUnansweredInfoIs408AndOneLostWithItsConnectionIs503() throws {
        var (alice, _) = try F.establishedCall()
        let timedOut = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, now: .zero)))
        let lost = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, now: .zero)))
        let timedOutCSeq = try timedOut.headers.cseq().sequence, lostCSeq = try lost.headers.cseq().sequence
        XCTAssertEqual(
            F.events(alice.requestFailed(method: .info, cseq: lostCSeq, failure: .transportError, now: .seconds(1))),
            [.infoResult(cseq: lostCSeq, statusCode: 503)])
        XCTAssertEqual(alice.state, .confirmed, "an INFO lost with its connection leaves the call up")
        // §12.2.1.2: no answer at all to a request inside the dialog ends the dialog.
        let actions = alice.requestFailed(method: .info, cseq: timedOutCSeq, failure: .transactionTimeout, now: .seconds(32))
        XCTAssertEqual(F.events(actions), [.infoResult(cseq: timedOutCSeq, statusCode: 408), .terminated(.failed(.transactionTimeout))])
        XCTAssertEqual(F.requests(actions).map(\.method), [.bye])
    }

    func testInfoAnswered481Or408EndsTheDialog() throws {
        for status in [481, 408] {
            var (alice, _) = try F.establishedCall()
            let info = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, now: .zero)))
            let sequence = try info.headers.cseq().sequence
            let actions = alice.receiveResponse(F.reply(info, status, toTag: nil), now: .seconds(1))
            XCTAssertEqual(
                F.events(actions),
                [.infoResult(cseq: sequence, statusCode: status), .terminated(.failed(.finalResponse(statusCode: status)))], "\(status)")
            XCTAssertEqual(F.requests(actions).map(\.method), [.bye], "\(status)")
        }
        // Any other failure leaves the call up.
        var (alice, _) = try F.establishedCall()
        let info = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, now: .zero)))
        _ = alice.receiveResponse(F.reply(info, 415, toTag: nil), now: .seconds(1))
        XCTAssertEqual(alice.state, .confirmed)
    }

    func testCalleeSendsInfoInTheEarlyDialogAndTheCallerAcceptsIt() throws {
        var alice = F.caller()
        var invite = try F.single(F.requests(alice.start(now: .zero)))
        // Two proxies recorded themselves on the way to Bob.
        invite.headers.add("Record-Route", "<sip:p2.example.com;lr>")
        invite.headers.add("Record-Route", "<sip:p1.example.com;lr>")
        var bob = F.callee(invite)
        XCTAssertThrowsError(try bob.sendInfo(contentType: "application/json", body: json, now: .zero), "no tag sent yet") {
            XCTAssertEqual($0 as? SIPInviteSessionError, .notConfirmed)
        }
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        XCTAssertEqual(F.events(alice.receiveResponse(ringing, now: .zero)), [.ringing])
        XCTAssertEqual(alice.state, .early)
        XCTAssertThrowsError(try alice.sendInfo(contentType: "application/json", body: json, now: .zero), "the caller waits for the answer")
        {
            XCTAssertEqual($0 as? SIPInviteSessionError, .notConfirmed)
        }

        let extra = SIPHeaders([("X-Twilio-VoiceEventSid", "KXearly")])
        let info = try F.single(F.requests(bob.sendInfo(contentType: "application/json", body: json, headers: extra, now: .zero)))
        XCTAssertEqual(info.uri.description, "sip:alice@192.0.2.10:5060", "the INVITE's Contact")
        XCTAssertEqual(info.headers["route"], ["<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>"], "Record-Route in order")
        XCTAssertEqual(try info.headers.cseq(), SIPCSeq(sequence: 1, method: .info), "the callee's own sequence")
        XCTAssertEqual(try info.headers.callID(), alice.callID)
        XCTAssertEqual(try info.headers.from().tag, bob.localTag)
        XCTAssertEqual(try info.headers.to().tag, alice.localTag)

        let actions = alice.receiveRequest(info, now: .zero)
        let ok = try F.single(F.responses(actions))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(F.events(actions), [.infoReceived(contentType: "application/json", body: json, headers: info.headers)])
        XCTAssertEqual(F.events(bob.receiveResponse(ok, now: .zero)), [.infoResult(cseq: 1, statusCode: 200)])

        // An INFO naming another early dialog (another fork's tag) is not this one's.
        var stranger = info
        stranger.headers.set("From", "<sip:carol@example.com>;tag=fork-2")
        stranger.headers.set("CSeq", "2 INFO")
        XCTAssertEqual(F.responses(alice.receiveRequest(stranger, now: .zero)).map(\.statusCode), [481])

        // The call then goes on as usual, the callee's numbering continuing.
        let answer = try F.single(F.responses(bob.accept(now: .zero)))
        let ack = try F.single(F.acks(alice.receiveResponse(answer, now: .zero)))
        _ = bob.receiveRequest(ack, now: .zero)
        XCTAssertEqual(bob.state, .confirmed)
        let bye = try F.single(F.requests(bob.hangUp(now: .zero)))
        XCTAssertEqual(try bye.headers.cseq(), SIPCSeq(sequence: 2, method: .bye))
        XCTAssertEqual(F.responses(alice.receiveRequest(bye, now: .zero)).map(\.statusCode), [200])
    }

    func testReINVITELostWithItsConnectionFailsTheChangeButKeepsTheCall() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        XCTAssertEqual(alice.resume(now: .zero), [], "queued behind the hold")
        let cseq = try hold.headers.cseq().sequence
        let actions = alice.requestFailed(method: .invite, cseq: cseq, failure: .transportError, now: .seconds(1))
        XCTAssertEqual(F.events(actions), [.holdFailed(statusCode: 503)])
        XCTAssertEqual(alice.state, .confirmed)
        // §14.1: the queued resume goes out now; no BYE.
        let queued = try F.single(F.requests(actions))
        XCTAssertEqual(queued.method, .invite)
        XCTAssertEqual(try F.direction(queued.body), .sendrecv)
        let ok = try F.single(F.responses(bob.receiveRequest(queued, now: .seconds(1))))
        let resumed = alice.receiveResponse(ok, now: .seconds(1))
        guard case .mediaUpdated(let media)? = F.events(resumed).first else { return XCTFail("\(resumed)") }
        XCTAssertEqual(media.direction, .sendrecv)

        // A hold lost the same way is asked for again by the next refresh (a new connection).
        let again = try F.single(F.requests(alice.hold(now: .seconds(2))))
        XCTAssertEqual(
            F.events(
                alice.requestFailed(method: .invite, cseq: try again.headers.cseq().sequence, failure: .connectionError, now: .seconds(2))),
            [.holdFailed(statusCode: 503)])
        let refresh = try F.single(F.requests(alice.refresh(now: .seconds(3))))
        XCTAssertEqual(try F.direction(refresh.body), .sendonly)

        // A timed-out one still ends the dialog (§12.2.1.2).
        let refreshCSeq = try refresh.headers.cseq().sequence
        let timeout = alice.requestFailed(method: .invite, cseq: refreshCSeq, failure: .transactionTimeout, now: .seconds(40))
        XCTAssertEqual(F.requests(timeout).map(\.method), [.bye])
        XCTAssertEqual(F.events(timeout), [.terminated(.failed(.transactionTimeout))])
    }
}
