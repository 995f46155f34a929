import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceSIP

/// A confirmed call: BYE either way, hold and resume re-INVITEs with glare and rollback, INFO,
/// OPTIONS and methods we do not support.
final class SIPInviteSessionInDialogTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    func testBYEFromCallerWithDialogHeaders() throws {
        var (alice, bob) = try F.establishedCall()
        let bye = try F.single(F.requests(alice.hangUp(now: .zero)))
        XCTAssertEqual(alice.state, .terminating)
        XCTAssertEqual(bye.method, .bye)
        XCTAssertEqual(bye.uri.description, "sip:bob@192.0.2.20:5060")
        XCTAssertEqual(try bye.headers.cseq(), SIPCSeq(sequence: 2, method: .bye))
        XCTAssertEqual(try bye.headers.from().tag, alice.localTag)
        XCTAssertEqual(try bye.headers.to().tag, bob.localTag)
        XCTAssertEqual(try bye.headers.maxForwards(), 70)
        XCTAssertEqual(bye.headers.first("allow"), "INVITE, ACK, BYE, CANCEL, OPTIONS, INFO, UPDATE, PRACK, REFER, NOTIFY")
        XCTAssertEqual(bye.headers.first("user-agent"), "VoiceSDK-test/1.0")
        XCTAssertEqual(bye.headers.first("content-length"), "0")
        XCTAssertNil(bye.headers.first("contact"))
        let bobActions = bob.receiveRequest(bye, now: .zero)
        let ok = try F.single(F.responses(bobActions))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(try ok.headers.cseq(), SIPCSeq(sequence: 2, method: .bye))
        XCTAssertEqual(F.events(bobActions), [.terminated(.remoteHangUp)])
        XCTAssertEqual(F.events(alice.receiveResponse(ok, now: .zero)), [.terminated(.localHangUp)])
        XCTAssertEqual(alice.state, .terminated(.localHangUp))
        // After the end, requests get 481.
        XCTAssertEqual(F.responses(bob.receiveRequest(bye, now: .zero)).map(\.statusCode), [481])
    }

    func testBYEFromCalleeAndBYETimeout() throws {
        var (alice, bob) = try F.establishedCall()
        let bye = try F.single(F.requests(bob.hangUp(now: .zero)))
        XCTAssertEqual(try bye.headers.cseq(), SIPCSeq(sequence: 1, method: .bye), "the callee's first request")
        XCTAssertEqual(bye.uri.description, "sip:alice@192.0.2.10:5060")
        XCTAssertEqual(F.responses(alice.receiveRequest(bye, now: .zero)).map(\.statusCode), [200])
        XCTAssertEqual(
            F.events(bob.requestFailed(method: .bye, cseq: 1, failure: .transactionTimeout, now: .seconds(32))),
            [.terminated(.localHangUp)])
    }

    func testHoldAndResumeThroughReINVITE() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        XCTAssertEqual(hold.method, .invite)
        XCTAssertEqual(try hold.headers.cseq(), SIPCSeq(sequence: 2, method: .invite))
        XCTAssertEqual(try hold.headers.to().tag, bob.localTag)
        XCTAssertEqual(hold.headers.first("contact"), "<sip:alice@192.0.2.10:5060>")
        XCTAssertEqual(hold.headers.first("content-type"), "application/sdp")
        XCTAssertEqual(try F.direction(hold.body), .sendonly)

        let bobActions = bob.receiveRequest(hold, now: .zero)
        let ok = try F.single(F.responses(bobActions))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(try F.direction(ok.body), .recvonly, "held: our answer is recvonly")
        XCTAssertEqual(F.started(bobActions)[.okRetransmission], .milliseconds(500))
        guard case .mediaUpdated(let bobMedia)? = F.events(bobActions).last else { return XCTFail("no update") }
        XCTAssertEqual(bobMedia.direction, .recvonly)

        let aliceActions = alice.receiveResponse(ok, now: .zero)
        let ack = try F.single(F.acks(aliceActions))
        XCTAssertEqual(try ack.headers.cseq(), SIPCSeq(sequence: 2, method: .ack))
        guard case .mediaUpdated(let aliceMedia)? = F.events(aliceActions).last else { return XCTFail("no update") }
        XCTAssertEqual(aliceMedia.direction, .sendonly)
        XCTAssertEqual(F.events(bob.receiveRequest(ack, now: .zero)), [])
        XCTAssertEqual(alice.receiveResponse(ok, now: .zero), [.sendACK(ack)], "2xx retransmission re-ACKed")

        let resume = try F.single(F.requests(alice.resume(now: .seconds(1))))
        XCTAssertEqual(try resume.headers.cseq(), SIPCSeq(sequence: 3, method: .invite))
        XCTAssertEqual(try F.direction(resume.body), .sendrecv)
        let resumed = try F.single(F.responses(bob.receiveRequest(resume, now: .seconds(1))))
        XCTAssertEqual(try F.direction(resumed.body), .sendrecv)
        guard case .mediaUpdated(let media)? = F.events(alice.receiveResponse(resumed, now: .seconds(1))).last else {
            return XCTFail("no update")
        }
        XCTAssertEqual(media.direction, .sendrecv)
    }

    func testCalleeHoldsCaller() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(bob.hold(now: .zero)))
        XCTAssertEqual(try hold.headers.cseq(), SIPCSeq(sequence: 1, method: .invite))
        XCTAssertEqual(hold.uri.description, "sip:alice@192.0.2.10:5060")
        let ok = try F.single(F.responses(alice.receiveRequest(hold, now: .zero)))
        XCTAssertEqual(try F.direction(ok.body), .recvonly)
        guard case .mediaUpdated(let media)? = F.events(bob.receiveResponse(ok, now: .zero)).last else {
            return XCTFail("no update")
        }
        XCTAssertEqual(media.direction, .sendonly)
    }

    func testGlareGets491AndRetriesAfterRandomDelay() throws {
        var (alice, bob) = try F.establishedCall()
        let aliceHold = try F.single(F.requests(alice.hold(now: .zero)))
        let bobHold = try F.single(F.requests(bob.hold(now: .zero)))
        // Each side has its own re-INVITE pending: 491 to the other's.
        let toBob = try F.single(F.responses(bob.receiveRequest(aliceHold, now: .zero)))
        let toAlice = try F.single(F.responses(alice.receiveRequest(bobHold, now: .zero)))
        XCTAssertEqual(toBob.statusCode, 491)
        XCTAssertEqual(toAlice.statusCode, 491)
        XCTAssertEqual(try toBob.headers.cseq(), SIPCSeq(sequence: 2, method: .invite))

        // §14.1: the Call-ID owner (Alice, the caller) waits 2.1–4 s, the other 0–2 s.
        let aliceActions = alice.receiveResponse(toBob, now: .zero)
        let aliceDelay = try XCTUnwrap(F.started(aliceActions)[.glareRetry])
        XCTAssertTrue((MediaTime.milliseconds(2100)...MediaTime.milliseconds(4000)).contains(aliceDelay), "\(aliceDelay)")
        XCTAssertTrue(F.requests(aliceActions).isEmpty)
        let bobDelay = try XCTUnwrap(F.started(bob.receiveResponse(toAlice, now: .zero))[.glareRetry])
        XCTAssertTrue((MediaTime.zero...MediaTime.milliseconds(2000)).contains(bobDelay), "\(bobDelay)")
        XCTAssertEqual(alice.negotiatedMedia?.direction, .sendrecv, "rolled back")

        // Bob retries first and wins; Alice answers it.
        let bobRetry = try F.single(F.requests(bob.timerFired(.glareRetry, now: bobDelay)))
        XCTAssertEqual(try bobRetry.headers.cseq(), SIPCSeq(sequence: 2, method: .invite))
        let ok = try F.single(F.responses(alice.receiveRequest(bobRetry, now: bobDelay)))
        XCTAssertEqual(ok.statusCode, 200)
        let ack = try F.single(F.acks(bob.receiveResponse(ok, now: bobDelay)))
        _ = alice.receiveRequest(ack, now: bobDelay)
        // Then Alice's retry goes out with a new CSeq.
        let aliceRetry = try F.single(F.requests(alice.timerFired(.glareRetry, now: aliceDelay)))
        XCTAssertEqual(try aliceRetry.headers.cseq(), SIPCSeq(sequence: 3, method: .invite))
        XCTAssertEqual(try F.direction(aliceRetry.body), .inactive, "both on hold")
    }

    func testRejectedReINVITERollsBackAndKeepsTheCall() throws {
        var (alice, _) = try F.establishedCall()
        let before = alice.negotiatedMedia
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        let actions = alice.receiveResponse(F.reply(hold, 488, toTag: nil), now: .zero)
        XCTAssertEqual(F.events(actions), [.holdFailed(statusCode: 488)])
        XCTAssertEqual(alice.state, .confirmed)
        XCTAssertEqual(alice.negotiatedMedia, before)
        // The offer was rolled back: a new hold can be sent.
        let again = try F.single(F.requests(alice.hold(now: .seconds(1))))
        XCTAssertEqual(try again.headers.cseq(), SIPCSeq(sequence: 3, method: .invite))
        // While it is pending, another change waits for it.
        XCTAssertEqual(alice.resume(now: .seconds(1)), [])
        // 481: the dialog is gone, and the waiting resume is dropped with it.
        let gone = alice.receiveResponse(F.reply(again, 481, toTag: nil), now: .seconds(2))
        XCTAssertEqual(F.events(gone).last, .terminated(.failed(.finalResponse(statusCode: 481))))
        XCTAssertFalse(F.requests(gone).contains { $0.method == .invite })
    }

    func testReINVITETimeoutEndsTheCall() throws {
        var (alice, _) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        let actions = alice.requestFailed(
            method: .invite, cseq: try hold.headers.cseq().sequence, failure: .transactionTimeout, now: .seconds(32))
        XCTAssertEqual(F.requests(actions).map(\.method), [.bye])
        XCTAssertEqual(F.events(actions), [.terminated(.failed(.transactionTimeout))])
    }

    func testHoldOnlyWhenConfirmed() throws {
        var alice = F.caller()
        XCTAssertEqual(alice.hold(now: .zero), [.event(.holdFailed(statusCode: nil))])
        _ = alice.start(now: .zero)
        XCTAssertEqual(alice.hold(now: .zero), [.event(.holdFailed(statusCode: nil))])
    }

    func testHoldAskedDuringAnotherReINVITEIsSentWhenItCompletes() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        // Resume while the hold is in progress: nothing goes out yet (§14.1).
        XCTAssertEqual(alice.resume(now: .zero), [])
        let ok = try F.single(F.responses(bob.receiveRequest(hold, now: .zero)))
        let afterOK = alice.receiveResponse(ok, now: .zero)
        let resume = try XCTUnwrap(F.requests(afterOK).first { $0.method == .invite }, "the queued resume follows the hold")
        XCTAssertTrue(String(decoding: resume.body, as: UTF8.self).contains("a=sendrecv"))
        XCTAssertGreaterThan(try resume.headers.cseq().sequence, try hold.headers.cseq().sequence)
    }

    func testReINVITEBeforeACKGets500WithRetryAfter() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        _ = alice.receiveResponse(ok, now: .zero)  // Alice is confirmed; her ACK is lost.
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        let reply = try F.single(F.responses(bob.receiveRequest(hold, now: .zero)))
        XCTAssertEqual(reply.statusCode, 500)
        XCTAssertNotNil(reply.headers.first("retry-after"))
    }

    func testUnacceptableReOfferGets488AndKeepsMedia() throws {
        var (alice, bob) = try F.establishedCall()
        let before = bob.negotiatedMedia
        var hold = try F.single(F.requests(alice.hold(now: .zero)))
        let bad =
            "v=0\r\no=- 1 2 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\nm=audio 4000 RTP/AVP 18\r\na=rtpmap:18 G729/8000\r\n"
        hold.body = Array(bad.utf8)
        hold.headers.set("Content-Length", String(hold.body.count))
        XCTAssertEqual(F.responses(bob.receiveRequest(hold, now: .zero)).map(\.statusCode), [488])
        XCTAssertEqual(bob.negotiatedMedia, before)
        XCTAssertEqual(bob.state, .confirmed)
    }

    func testJSONInfoBothWays() throws {
        var (alice, bob) = try F.establishedCall()
        let json = Array(#"{"type":"hello"}"#.utf8)
        let info = try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: json, now: .zero)))
        XCTAssertEqual(info.method, .info)
        XCTAssertEqual(try info.headers.cseq(), SIPCSeq(sequence: 2, method: .info))
        XCTAssertEqual(info.headers.first("content-type"), "application/json")
        XCTAssertEqual(try info.headers.contentLength(), json.count)
        XCTAssertEqual(info.body, json)
        XCTAssertEqual(try info.headers.maxForwards(), 70)
        let actions = bob.receiveRequest(info, now: .zero)
        let ok = try F.single(F.responses(actions))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(F.events(actions), [.infoReceived(contentType: "application/json", body: json, headers: info.headers)])
        XCTAssertEqual(F.events(alice.receiveResponse(ok, now: .zero)), [.infoResult(cseq: 2, statusCode: 200)])
        XCTAssertEqual(
            F.events(alice.requestFailed(method: .info, cseq: 2, failure: .transactionTimeout, now: .zero)), [],
            "already answered")

        // Limits: 10 240 bytes pass, one more does not.
        XCTAssertNoThrow(try alice.sendInfo(contentType: "application/json", body: Array(repeating: 0x20, count: 10_240), now: .zero))
        XCTAssertThrowsError(
            try alice.sendInfo(contentType: "application/json", body: Array(repeating: 0x20, count: 10_241), now: .zero)
        ) { XCTAssertEqual($0 as? SIPInviteSessionError, .bodyTooLarge) }
        XCTAssertThrowsError(try alice.sendInfo(contentType: "text/plain", body: json, now: .zero)) {
            XCTAssertEqual($0 as? SIPInviteSessionError, .unsupportedContentType)
        }
        XCTAssertThrowsError(try alice.sendInfo(contentType: "not a type", body: json, now: .zero)) {
            XCTAssertEqual($0 as? SIPInviteSessionError, .unsupportedContentType)
        }
        var big = info
        big.headers.set("CSeq", "10 INFO")
        big.body = Array(repeating: 0x20, count: 10_241)
        big.headers.set("Content-Length", "10241")
        XCTAssertEqual(F.responses(bob.receiveRequest(big, now: .zero)).map(\.statusCode), [413])
        var text = info
        text.headers.set("CSeq", "11 INFO")
        text.headers.set("Content-Type", "text/plain")
        let unsupported = try F.single(F.responses(bob.receiveRequest(text, now: .zero)))
        XCTAssertEqual(unsupported.statusCode, 415)
        XCTAssertEqual(unsupported.headers.first("accept"), "application/json, application/dtmf-relay")
    }

    func testDTMFRelayInfoBothWays() throws {
        var (alice, bob) = try F.establishedCall()
        let relay = try XCTUnwrap(SIPDTMFRelay(digit: "5", duration: 160))
        let info = try F.single(F.requests(bob.sendInfo(contentType: "application/dtmf-relay", body: relay.body, now: .zero)))
        XCTAssertEqual(info.body, Array("Signal=5\r\nDuration=160\r\n".utf8))
        XCTAssertEqual(info.headers.first("content-type"), "application/dtmf-relay")
        let actions = alice.receiveRequest(info, now: .zero)
        XCTAssertEqual(F.responses(actions).map(\.statusCode), [200])
        XCTAssertEqual(F.events(actions), [.dtmfReceived(digit: "5", duration: 160)])
        XCTAssertEqual(
            F.events(bob.requestFailed(method: .info, cseq: 1, failure: .transportError, now: .seconds(32))),
            [.infoResult(cseq: 1, statusCode: 503)])

        var broken = info
        broken.headers.set("CSeq", "5 INFO")
        broken.body = Array("Duration=160\r\n".utf8)
        broken.headers.set("Content-Length", String(broken.body.count))
        XCTAssertEqual(F.responses(alice.receiveRequest(broken, now: .zero)).map(\.statusCode), [400])
        XCTAssertThrowsError(try bob.sendInfo(contentType: "application/dtmf-relay", body: Array("Signal=Z".utf8), now: .zero))
    }

    func testInfoOnlyWhenConfirmed() throws {
        var alice = F.caller()
        _ = alice.start(now: .zero)
        XCTAssertThrowsError(try alice.sendInfo(contentType: "application/json", body: [], now: .zero)) {
            XCTAssertEqual($0 as? SIPInviteSessionError, .notConfirmed)
        }
    }

    func testOptionsUnsupportedAndUnknownMethodsAreAnswered() throws {
        var (alice, bob) = try F.establishedCall()
        var dialog = try XCTUnwrap(alice.currentDialog)
        let via = SIPVia(transport: "UDP", host: "192.0.2.10", branch: "z9hG4bKtest")
        let options = dialog.makeRequest(method: .options, via: via)
        let ok = try F.single(F.responses(bob.receiveRequest(options, now: .zero)))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(ok.headers.first("allow"), "INVITE, ACK, BYE, CANCEL, OPTIONS, INFO, UPDATE, PRACK, REFER, NOTIFY")
        XCTAssertEqual(ok.headers.first("accept"), "application/sdp")
        for method in [SIPMethod.subscribe, .message] {
            let reply = try F.single(F.responses(bob.receiveRequest(dialog.makeRequest(method: method, via: via), now: .zero)))
            XCTAssertEqual(reply.statusCode, 405, "\(method)")
            XCTAssertEqual(reply.headers.first("allow"), "INVITE, ACK, BYE, CANCEL, OPTIONS, INFO, UPDATE, PRACK, REFER, NOTIFY")
        }
        let foo = try XCTUnwrap(SIPMethod("FOO"))
        let unknown = try F.single(F.responses(bob.receiveRequest(dialog.makeRequest(method: foo, via: via), now: .zero)))
        XCTAssertEqual(unknown.statusCode, 501)
        XCTAssertEqual(try unknown.headers.cseq().method, foo)
        // Out of order: lower CSeq → 500.
        var old = options
        old.headers.set("CSeq", "1 OPTIONS")
        XCTAssertEqual(F.responses(bob.receiveRequest(old, now: .zero)).map(\.statusCode), [500])
        // Another dialog → 481.
        var stray = dialog.makeRequest(method: .info, via: via)
        stray.headers.set("From", "<sip:mallory@example.com>;tag=zzz")
        XCTAssertEqual(F.responses(bob.receiveRequest(stray, now: .zero)).map(\.statusCode), [481])
        XCTAssertEqual(bob.state, .confirmed)
    }

    func testDTMFRelayParsing() throws {
        let cases: [(String, Character, Int)] = [
            ("Signal=5\r\nDuration=160\r\n", "5", 160),
            ("Signal= *\r\nDuration= 250\r\n", "*", 250),
            ("signal=10\nduration=100", "*", 100),
            ("Signal=11\r\n", "#", 250),
            ("Signal=a\r\nDuration=60000\r\n", "A", 60_000),
        ]
        for (text, digit, duration) in cases {
            let relay = try SIPDTMFRelay(parsing: Array(text.utf8))
            XCTAssertEqual(relay.digit, digit, text)
            XCTAssertEqual(relay.duration, duration, text)
        }
        for bad in ["", "Duration=100", "Signal=E", "Signal=55", "Signal=1\r\nDuration=0", "Signal=1\r\nDuration=x"] {
            XCTAssertThrowsError(try SIPDTMFRelay(parsing: Array(bad.utf8)), bad) {
                XCTAssertEqual($0 as? SIPInviteSessionError, .malformedBody, bad)
            }
        }
        XCTAssertThrowsError(try SIPDTMFRelay(parsing: Array(repeating: 0x41, count: 257))) {
            XCTAssertEqual($0 as? SIPInviteSessionError, .bodyTooLarge)
        }
        XCTAssertThrowsError(try SIPDTMFRelay(parsing: Array(String(repeating: "x=1\n", count: 20).utf8)))
        XCTAssertNil(SIPDTMFRelay(digit: "x", duration: 100))
    }

    func testFailedResumeKeepsHolding() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        let held = try F.single(F.responses(bob.receiveRequest(hold, now: .zero)))
        _ = bob.receiveRequest(try F.single(F.acks(alice.receiveResponse(held, now: .zero))), now: .zero)
        let resume = try F.single(F.requests(alice.resume(now: .seconds(1))))
        XCTAssertEqual(
            F.events(alice.receiveResponse(F.reply(resume, 500, toTag: nil), now: .seconds(1))), [.resumeFailed(statusCode: 500)])
        XCTAssertEqual(alice.negotiatedMedia?.direction, .sendonly)
        // Still holding: a sendrecv re-offer from Bob is answered sendonly.
        let reoffer = try F.single(F.requests(bob.resume(now: .seconds(2))))
        let answer = try F.single(F.responses(alice.receiveRequest(reoffer, now: .seconds(2))))
        XCTAssertEqual(try F.direction(answer.body), .sendonly)
    }

    func testReINVITEAnsweredAfterHangUpIsStillACKed() throws {
        var (alice, bob) = try F.establishedCall()
        let hold = try F.single(F.requests(alice.hold(now: .zero)))
        let bye = try F.single(F.requests(alice.hangUp(now: .zero)))
        let ok = try F.single(F.responses(bob.receiveRequest(hold, now: .zero)))
        let actions = alice.receiveResponse(ok, now: .zero)
        XCTAssertEqual(try F.single(F.acks(actions)).method, .ack)
        XCTAssertTrue(F.events(actions).isEmpty)
        XCTAssertEqual(F.events(alice.receiveResponse(F.reply(bye, 200, toTag: nil), now: .zero)), [.terminated(.localHangUp)])
    }
}
