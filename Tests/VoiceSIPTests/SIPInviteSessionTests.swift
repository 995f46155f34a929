import VoiceMediaTypes
import VoiceSupport
import VoiceTestAudio
import XCTest

@testable import VoiceSIP

/// Builds sessions and reads their actions; the test plays the driver and the transaction layer.
enum SIPInviteSessionFixture {
    static let t1 = MediaTime.milliseconds(500)

    static func configuration(
        user: String, host: String, mediaPort: UInt16, encryption: SDPEncryptionPolicy = .unencrypted,
        credentials: [SIPAuthCredentials] = []
    ) -> SIPInviteSession.Configuration {
        var via = SIPVia(transport: "UDP", host: host, port: 5060)
        via.parameters.set("rport", nil)
        return SIPInviteSession.Configuration(
            localIdentity: SIPNameAddress(displayName: user.capitalized, uri: SIPURI(user: user, host: "\(user).example.com")),
            contact: SIPURI(user: user, host: host, port: 5060),
            via: via,
            capabilities: SDPLocalCapabilities(address: host, port: mediaPort, encryption: encryption),
            credentials: credentials, userAgent: "VoiceSDK-test/1.0", t1: t1,
            cnonce: { "0a4f113b" })
    }

    static var alice: SIPInviteSession.Configuration { configuration(user: "alice", host: "192.0.2.10", mediaPort: 4000) }
    static var bob: SIPInviteSession.Configuration { configuration(user: "bob", host: "192.0.2.20", mediaPort: 6000) }

    static func caller(
        _ configuration: SIPInviteSession.Configuration = alice, seed: UInt64 = 1, extraHeaders: [(String, String)] = []
    )
        -> SIPInviteSession
    {
        var rng = SplitMix64(seed: seed)
        return SIPInviteSession(
            outgoingTo: SIPNameAddress(displayName: "Bob", uri: SIPURI(user: "bob", host: "bob.example.com")),
            requestURI: SIPURI(user: "bob", host: "bob.example.com"), extraHeaders: extraHeaders,
            configuration: configuration, using: &rng)
    }

    static func callee(
        _ invite: SIPRequest, _ configuration: SIPInviteSession.Configuration = bob, seed: UInt64 = 2
    )
        -> SIPInviteSession
    {
        var rng = SplitMix64(seed: seed)
        return SIPInviteSession(incoming: invite, configuration: configuration, using: &rng)
    }

    static func requests(_ actions: [SIPInviteSessionAction]) -> [SIPRequest] {
        actions.compactMap { if case .sendRequest(let r) = $0 { r } else { nil } }
    }

    static func responses(_ actions: [SIPInviteSessionAction]) -> [SIPResponse] {
        actions.compactMap { if case .sendResponse(let r) = $0 { r } else { nil } }
    }

    static func acks(_ actions: [SIPInviteSessionAction]) -> [SIPRequest] {
        actions.compactMap { if case .sendACK(let r) = $0 { r } else { nil } }
    }

    static func events(_ actions: [SIPInviteSessionAction]) -> [SIPInviteSessionEvent] {
        actions.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    static func started(_ actions: [SIPInviteSessionAction]) -> [SIPInviteSessionTimer: MediaTime] {
        var out: [SIPInviteSessionTimer: MediaTime] = [:]
        for case .startTimer(let timer, let after) in actions { out[timer] = after }
        return out
    }

    static func single<T>(_ items: [T], file: StaticString = #filePath, line: UInt = #line) throws -> T {
        guard items.count == 1 else {
            return try XCTUnwrap(nil as T?, "expected exactly one, got \(items.count)", file: file, line: line)
        }
        return try XCTUnwrap(items.first, file: file, line: line)
    }

    static func sdp(_ body: [UInt8]) throws -> SDPSessionDescription { try SDPSessionDescription(parsing: body) }

    static func direction(_ body: [UInt8]) throws -> SDPDirection? {
        let description = try sdp(body)
        guard let media = description.media.first else { return nil }
        return description.direction(of: media)
    }

    /// A call set up between two sessions: Alice (UAC) and Bob (UAS), ACKed.
    static func establishedCall(
        aliceConfiguration: SIPInviteSession.Configuration = alice, bobConfiguration: SIPInviteSession.Configuration = bob
    ) throws -> (alice: SIPInviteSession, bob: SIPInviteSession) {
        var alice = caller(aliceConfiguration)
        let invite = try single(requests(alice.start(now: .zero)))
        var bob = callee(invite, bobConfiguration)
        let ok = try single(responses(bob.accept(now: .zero)))
        let ack = try single(acks(alice.receiveResponse(ok, now: .zero)))
        _ = bob.receiveRequest(ack, now: .zero)
        XCTAssertEqual(alice.state, .confirmed)
        XCTAssertEqual(bob.state, .confirmed)
        return (alice, bob)
    }

    /// A response to `request` as a peer would build it, for scripted answers.
    static func reply(_ request: SIPRequest, _ code: Int, toTag: String? = "peer-tag") -> SIPResponse {
        SIPResponse(replyingTo: request, statusCode: code, toTag: toTag)
    }
}

/// The caller's side: INVITE, provisionals, 2xx and ACK, rejections, authentication, CANCEL.
final class SIPInviteSessionTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    func testInviteCarriesOfferAndEveryRequiredHeader() throws {
        var alice = F.caller(extraHeaders: [("X-Call-Tag", "42")])
        XCTAssertEqual(alice.state, .idle)
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        XCTAssertEqual(alice.state, .calling)
        XCTAssertEqual(invite.method, .invite)
        XCTAssertEqual(invite.uri.description, "sip:bob@bob.example.com")
        let via = try invite.headers.topVia()
        XCTAssertEqual(via.transport, "UDP")
        XCTAssertEqual(via.host, "192.0.2.10")
        XCTAssertTrue(via.hasRFC3261Branch)
        XCTAssertTrue(via.hasRport)
        XCTAssertEqual(try invite.headers.maxForwards(), 70)
        let from = try invite.headers.from()
        XCTAssertEqual(from.uri.description, "sip:alice@alice.example.com")
        XCTAssertEqual(from.tag, alice.localTag)
        XCTAssertNil(try invite.headers.to().tag)
        XCTAssertEqual(try invite.headers.callID(), alice.callID)
        XCTAssertEqual(try invite.headers.cseq(), SIPCSeq(sequence: 1, method: .invite))
        XCTAssertEqual(invite.headers.first("contact"), "<sip:alice@192.0.2.10:5060>")
        XCTAssertEqual(invite.headers.first("allow"), "INVITE, ACK, BYE, CANCEL, OPTIONS, INFO, UPDATE, PRACK, REFER, NOTIFY")
        XCTAssertEqual(invite.headers.first("user-agent"), "VoiceSDK-test/1.0")
        XCTAssertEqual(invite.headers.first("x-call-tag"), "42")
        XCTAssertEqual(invite.headers.first("content-type"), "application/sdp")
        XCTAssertEqual(try invite.headers.contentLength(), invite.body.count)
        let offer = try F.sdp(invite.body)
        XCTAssertEqual(offer.media.first?.port, 4000)
        XCTAssertEqual(try F.direction(invite.body), .sendrecv)
        XCTAssertNil(alice.dialogID)
        // The same seed makes the same identifiers.
        var again = F.caller()
        XCTAssertEqual(try F.single(F.requests(again.start(now: .zero))).headers.first("via"), invite.headers.first("via"))
    }

    func testRingingThenOKIsACKedWithSameCSeqAndNewBranch() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let trying = F.reply(invite, 100, toTag: nil)
        XCTAssertEqual(F.events(alice.receiveResponse(trying, now: .zero)), [.progress(statusCode: 100)])
        XCTAssertEqual(alice.state, .calling)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        XCTAssertEqual(F.events(alice.receiveResponse(ringing, now: .zero)), [.ringing])
        XCTAssertEqual(alice.state, .early)
        XCTAssertEqual(alice.dialogID, SIPDialogID(callID: alice.callID, localTag: alice.localTag, remoteTag: bob.localTag))

        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        let actions = alice.receiveResponse(ok, now: .zero)
        let ack = try F.single(F.acks(actions))
        XCTAssertEqual(ack.method, .ack)
        XCTAssertEqual(ack.uri.description, "sip:bob@192.0.2.20:5060", "the ACK goes to the 2xx's Contact")
        XCTAssertEqual(try ack.headers.cseq(), SIPCSeq(sequence: 1, method: .ack))
        XCTAssertNotEqual(try ack.headers.topVia().branch, try invite.headers.topVia().branch)
        XCTAssertTrue(try ack.headers.topVia().hasRFC3261Branch)
        XCTAssertEqual(try ack.headers.to().tag, bob.localTag)
        XCTAssertEqual(try ack.headers.from().tag, alice.localTag)
        XCTAssertEqual(try ack.headers.maxForwards(), 70)
        XCTAssertTrue(ack.body.isEmpty)
        guard case .established(let media)? = F.events(actions).last else { return XCTFail("not established") }
        XCTAssertEqual(media.remoteRTP, SDPTransportAddress(host: "192.0.2.20", port: 6000))
        XCTAssertEqual(alice.state, .confirmed)
        XCTAssertEqual(alice.negotiatedMedia, media)

        // A retransmitted 2xx is answered with the same ACK, nothing else.
        XCTAssertEqual(alice.receiveResponse(ok, now: .milliseconds(500)), [.sendACK(ack)])

        // Bob: the ACK confirms.
        let bobActions = bob.receiveRequest(ack, now: .zero)
        XCTAssertTrue(bobActions.contains(.cancelTimer(.okRetransmission)))
        guard case .established(let bobMedia)? = F.events(bobActions).last else { return XCTFail("bob not established") }
        XCTAssertEqual(bobMedia.remoteRTP, SDPTransportAddress(host: "192.0.2.10", port: 4000))
    }

    func testSessionProgressWithSDPIsEarlyMedia() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        // A callee without 100rel: the 183 goes unreliably (SIPReliableProvisionalTests has the other).
        var plain = F.bob
        plain.reliableProvisionals = false
        var bob = F.callee(invite, plain)
        let progress = try F.single(F.responses(bob.sendEarlyMedia(now: .zero)))
        XCTAssertEqual(progress.statusCode, 183)
        XCTAssertEqual(progress.reasonPhrase, "Session Progress")
        XCTAssertEqual(bob.state, .early)
        let early = F.events(alice.receiveResponse(progress, now: .zero))
        // Early media first, so the app knows not to play a ringback tone on the progress.
        XCTAssertEqual(early.last, .progress(statusCode: 183))
        guard case .earlyMedia(let media)? = early.first else { return XCTFail("no early media") }
        XCTAssertEqual(media.remoteRTP.port, 6000)
        XCTAssertEqual(alice.state, .early)
        // A second 183 with SDP is not another answer (§13.2.1).
        XCTAssertEqual(F.events(alice.receiveResponse(progress, now: .zero)), [.progress(statusCode: 183)])
        // The 2xx repeats the answer, byte for byte: established with the same media.
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        XCTAssertEqual(ok.body, progress.body)
        XCTAssertEqual(F.events(alice.receiveResponse(ok, now: .zero)), [.established(media)])
    }

    func testEarlyMediaNeedsAnOfferToAnswer() throws {
        // An INVITE without SDP: no answer to put in the 183, so the callee rings instead.
        var alice = F.caller()
        var invite = try F.single(F.requests(alice.start(now: .zero)))
        invite.body = []
        invite.headers.remove("Content-Type")
        var bob = F.callee(invite)
        let response = try F.single(F.responses(bob.sendEarlyMedia(now: .zero)))
        XCTAssertEqual(response.statusCode, 180)
        XCTAssertTrue(response.body.isEmpty)
        // An offer we cannot answer is refused with 488 before anything is sent early.
        var carol = F.caller()
        var bad = try F.single(F.requests(carol.start(now: .zero)))
        bad.body = Array("v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=video 5000 RTP/AVP 96\r\n".utf8)
        var dave = F.callee(bad)
        let refused = F.responses(dave.sendEarlyMedia(now: .zero))
        XCTAssertEqual(refused.map(\.statusCode), [488])
        XCTAssertEqual(dave.sendEarlyMedia(now: .zero), [], "nothing more after the refusal")
    }

    func testFinalRejectionEndsTheCall() throws {
        for code in [404, 486, 503, 603] {
            var alice = F.caller()
            let invite = try F.single(F.requests(alice.start(now: .zero)))
            let actions = alice.receiveResponse(F.reply(invite, code), now: .zero)
            XCTAssertEqual(F.events(actions), [.terminated(.rejected(statusCode: code))], "\(code)")
            XCTAssertEqual(alice.state, .terminated(.rejected(statusCode: code)))
            XCTAssertTrue(F.requests(actions).isEmpty && F.acks(actions).isEmpty, "the transaction ACKs non-2xx")
        }
    }

    func testProxyChallengeIsAnsweredOnceThenFails() throws {
        var config = F.alice
        config.credentials = [SIPAuthCredentials(username: "alice", password: "secret")]
        var alice = F.caller(config)
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var challenge = F.reply(invite, 407)
        challenge.headers.add(
            "Proxy-Authenticate", #"Digest realm="atlanta.example.com", qop="auth", nonce="f84f1cec41e6cbe5aea9c8e88d359", algorithm=MD5"#)
        let retry = try F.single(F.requests(alice.receiveResponse(challenge, now: .zero)))
        XCTAssertEqual(try retry.headers.cseq(), SIPCSeq(sequence: 2, method: .invite))
        XCTAssertEqual(try retry.headers.callID(), try invite.headers.callID())
        XCTAssertEqual(try retry.headers.from().tag, alice.localTag)
        XCTAssertNil(try retry.headers.to().tag)
        XCTAssertNotEqual(try retry.headers.topVia().branch, try invite.headers.topVia().branch)
        XCTAssertEqual(retry.body, invite.body, "the same offer")
        let authorization = try XCTUnwrap(retry.headers.first("proxy-authorization"))
        XCTAssertTrue(authorization.hasPrefix("Digest "))
        XCTAssertTrue(authorization.contains(#"username="alice""#))
        XCTAssertTrue(authorization.contains(#"uri="sip:bob@bob.example.com""#))
        XCTAssertTrue(authorization.contains("nc=00000001"))

        // Rejected again: the credentials are wrong.
        var again = F.reply(retry, 407)
        again.headers.add(
            "Proxy-Authenticate", #"Digest realm="atlanta.example.com", qop="auth", nonce="0000000000000000000000000002", algorithm=MD5"#)
        let actions = alice.receiveResponse(again, now: .zero)
        XCTAssertTrue(F.requests(actions).isEmpty)
        XCTAssertEqual(F.events(actions), [.terminated(.failed(.authenticationFailed))])
    }

    func testChallengeWithoutCredentialsFails() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var challenge = F.reply(invite, 401)
        challenge.headers.add("WWW-Authenticate", #"Digest realm="biloxi.example.com", nonce="abc""#)
        XCTAssertEqual(F.events(alice.receiveResponse(challenge, now: .zero)), [.terminated(.failed(.challengeUnanswerable))])
    }

    func testTransactionTimeoutAndTransportErrorFail() throws {
        for failure in [SIPFailure.transactionTimeout, .transportError] {
            var alice = F.caller()
            _ = alice.start(now: .zero)
            XCTAssertEqual(alice.requestFailed(method: .invite, cseq: 2, failure: failure, now: .zero), [], "unknown CSeq")
            XCTAssertEqual(
                F.events(alice.requestFailed(method: .invite, cseq: 1, failure: failure, now: .seconds(32))),
                [.terminated(.failed(failure))])
        }
    }

    func testCancelWaitsForAProvisionalThenCopiesTheInvite() throws {
        var alice = F.caller(extraHeaders: [("Route", "<sip:proxy.example.com;lr>")])
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        XCTAssertEqual(alice.hangUp(now: .milliseconds(10)), [], "§9.1: no CANCEL before a provisional")
        XCTAssertEqual(alice.state, .terminating)
        let actions = alice.receiveResponse(F.reply(invite, 100, toTag: nil), now: .milliseconds(20))
        let cancel = try F.single(F.requests(actions))
        XCTAssertEqual(F.started(actions)[.cancelTimeout], .milliseconds(32_000))
        XCTAssertEqual(cancel.method, .cancel)
        XCTAssertEqual(cancel.uri, invite.uri)
        XCTAssertEqual(cancel.headers["via"], invite.headers["via"], "same top Via, same branch")
        XCTAssertEqual(cancel.headers.first("from"), invite.headers.first("from"))
        XCTAssertEqual(cancel.headers.first("to"), invite.headers.first("to"))
        XCTAssertEqual(cancel.headers.first("call-id"), invite.headers.first("call-id"))
        XCTAssertEqual(cancel.headers["route"], ["<sip:proxy.example.com;lr>"])
        XCTAssertEqual(try cancel.headers.cseq(), SIPCSeq(sequence: 1, method: .cancel))
        XCTAssertEqual(try cancel.headers.maxForwards(), 70)
        XCTAssertTrue(cancel.body.isEmpty)
        XCTAssertNil(cancel.headers.first("contact"))
        // A second hang-up sends nothing more.
        XCTAssertEqual(alice.hangUp(now: .milliseconds(30)), [])
        XCTAssertEqual(alice.receiveResponse(F.reply(cancel, 200), now: .milliseconds(40)), [])
        let ended = alice.receiveResponse(F.reply(invite, 487), now: .milliseconds(50))
        XCTAssertEqual(ended, [.cancelTimer(.cancelTimeout), .event(.terminated(.cancelledByLocal))])
    }

    func testCancelAfterRingingAndTimeoutWithoutFinal() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        _ = alice.receiveResponse(F.reply(invite, 180), now: .zero)
        let cancel = try F.single(F.requests(alice.hangUp(now: .zero)))
        XCTAssertEqual(cancel.method, .cancel)
        XCTAssertNil(try cancel.headers.to().tag, "CANCEL's To is the INVITE's, without the 180's tag")
        XCTAssertEqual(F.events(alice.timerFired(.cancelTimeout, now: .seconds(32))), [.terminated(.cancelledByLocal)])
    }

    func testOKCrossingCancelIsACKedThenBYEd() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        _ = alice.receiveResponse(ringing, now: .zero)
        XCTAssertEqual(try F.single(F.requests(alice.hangUp(now: .zero))).method, .cancel)
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        let actions = alice.receiveResponse(ok, now: .zero)
        let ack = try F.single(F.acks(actions))
        let bye = try F.single(F.requests(actions))
        XCTAssertEqual(try ack.headers.cseq(), SIPCSeq(sequence: 1, method: .ack))
        XCTAssertEqual(bye.method, .bye)
        XCTAssertEqual(try bye.headers.cseq(), SIPCSeq(sequence: 2, method: .bye))
        XCTAssertEqual(try bye.headers.to().tag, bob.localTag)
        XCTAssertEqual(bye.uri.description, "sip:bob@192.0.2.20:5060")
        guard let ackIndex = actions.firstIndex(of: .sendACK(ack)), let byeIndex = actions.firstIndex(of: .sendRequest(bye)) else {
            return XCTFail("missing actions")
        }
        XCTAssertLessThan(ackIndex, byeIndex)
        XCTAssertFalse(F.events(actions).contains { if case .established = $0 { true } else { false } })
        XCTAssertEqual(F.events(alice.receiveResponse(F.reply(bye, 200, toTag: nil), now: .zero)), [.terminated(.localHangUp)])
    }

    func testUnacceptableAnswerInOKIsACKedAndBYEd() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var ok = F.reply(invite, 200)
        ok.headers.add("Contact", "<sip:bob@192.0.2.20>")
        let answer =
            "v=0\r\no=- 1 1 IN IP4 192.0.2.20\r\ns=-\r\nc=IN IP4 192.0.2.20\r\nt=0 0\r\nm=audio 6000 RTP/AVP 18\r\na=rtpmap:18 G729/8000\r\n"
        ok.setBody(Array(answer.utf8), contentType: "application/sdp")
        let actions = alice.receiveResponse(ok, now: .zero)
        XCTAssertEqual(F.acks(actions).count, 1)
        XCTAssertEqual(F.requests(actions).map(\.method), [.bye])
        guard case .terminated(.mediaNegotiationFailed)? = F.events(actions).last else { return XCTFail("not failed") }
    }

    func testSecondForkOKIsACKedAndBYEd() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var first = F.reply(invite, 200, toTag: "fork-1")
        first.headers.add("Contact", "<sip:bob@192.0.2.20>")
        var bob = F.callee(invite)
        let answer = try F.single(F.responses(bob.accept(now: .zero)))
        first.setBody(answer.body, contentType: "application/sdp")
        _ = alice.receiveResponse(first, now: .zero)
        XCTAssertEqual(alice.state, .confirmed)

        var second = F.reply(invite, 200, toTag: "fork-2")
        second.headers.add("Contact", "<sip:bob@192.0.2.99>")
        second.setBody(answer.body, contentType: "application/sdp")
        let actions = alice.receiveResponse(second, now: .zero)
        let ack = try F.single(F.acks(actions))
        XCTAssertEqual(ack.uri.description, "sip:bob@192.0.2.99")
        XCTAssertEqual(try ack.headers.to().tag, "fork-2")
        let bye = try F.single(F.requests(actions))
        XCTAssertEqual(bye.method, .bye)
        XCTAssertEqual(try bye.headers.to().tag, "fork-2")
        XCTAssertEqual(bye.uri.description, "sip:bob@192.0.2.99")
        XCTAssertTrue(F.events(actions).isEmpty)
        // Its retransmission gets the same ACK; the BYE's answer changes nothing.
        XCTAssertEqual(alice.receiveResponse(second, now: .zero), [.sendACK(ack)])
        XCTAssertEqual(alice.receiveResponse(F.reply(bye, 200, toTag: nil), now: .zero), [])
        XCTAssertEqual(alice.state, .confirmed)
        XCTAssertEqual(alice.dialogID?.remoteTag, "fork-1")
    }

    func testChallengedBYEIsResentWithCredentials() throws {
        var config = F.alice
        config.credentials = [SIPAuthCredentials(username: "alice", password: "secret")]
        var (alice, _) = try F.establishedCall(aliceConfiguration: config)
        let bye = try F.single(F.requests(alice.hangUp(now: .zero)))
        var challenge = F.reply(bye, 401, toTag: nil)
        challenge.headers.add("WWW-Authenticate", #"Digest realm="biloxi.example.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093""#)
        let retry = try F.single(F.requests(alice.receiveResponse(challenge, now: .zero)))
        XCTAssertEqual(retry.method, .bye)
        XCTAssertEqual(try retry.headers.cseq(), SIPCSeq(sequence: 3, method: .bye))
        XCTAssertTrue(try XCTUnwrap(retry.headers.first("authorization")).contains(#"realm="biloxi.example.com""#))
        XCTAssertEqual(F.events(alice.receiveResponse(F.reply(retry, 200, toTag: nil), now: .zero)), [.terminated(.localHangUp)])
    }

    func testCancelAfterChallengeTargetsTheNewInvite() throws {
        var config = F.alice
        config.credentials = [SIPAuthCredentials(username: "alice", password: "secret")]
        var alice = F.caller(config)
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        _ = alice.receiveResponse(F.reply(invite, 100, toTag: nil), now: .zero)
        var challenge = F.reply(invite, 407)
        challenge.headers.add("Proxy-Authenticate", #"Digest realm="atlanta.example.com", nonce="abc123""#)
        let retry = try F.single(F.requests(alice.receiveResponse(challenge, now: .zero)))
        XCTAssertEqual(alice.hangUp(now: .zero), [], "no provisional for the new INVITE yet")
        let cancel = try F.single(F.requests(alice.receiveResponse(F.reply(retry, 100, toTag: nil), now: .zero)))
        XCTAssertEqual(try cancel.headers.cseq(), SIPCSeq(sequence: 2, method: .cancel))
        XCTAssertEqual(try cancel.headers.topVia().branch, try retry.headers.topVia().branch)
    }

    func testHangUpBeforeAnyProvisionalEndsOnTimeout() throws {
        var alice = F.caller()
        _ = alice.start(now: .zero)
        XCTAssertEqual(alice.hangUp(now: .zero), [])
        XCTAssertEqual(
            F.events(alice.requestFailed(method: .invite, cseq: 1, failure: .transactionTimeout, now: .seconds(32))),
            [.terminated(.localHangUp)])
        var idle = F.caller()
        XCTAssertEqual(F.events(idle.hangUp(now: .zero)), [.terminated(.localHangUp)])
        XCTAssertEqual(idle.start(now: .zero), [], "ended before it started")
    }
}
