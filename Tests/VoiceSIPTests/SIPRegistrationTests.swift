import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceSIP

final class SIPRegistrationTests: XCTestCase {
    private let contactURI = SIPURI(user: "alice", host: "192.0.2.10", port: 5060)

    private func configuration(
        expires: UInt32 = 3600, credentials: [SIPAuthCredentials] = [SIPAuthCredentials(username: "alice", password: "secret")]
    ) -> SIPRegistration.Configuration {
        var via = SIPVia(transport: "UDP", host: "192.0.2.10", port: 5060)
        via.parameters.set("rport", nil)
        return SIPRegistration.Configuration(
            registrar: SIPURI(host: "example.com"),
            addressOfRecord: SIPNameAddress(displayName: "Alice", uri: SIPURI(user: "alice", host: "example.com")),
            contact: contactURI, via: via, expires: expires, credentials: credentials, userAgent: "VoiceSDK/1.0")
    }

    private func makeRegistration(_ configuration: SIPRegistration.Configuration? = nil) -> SIPRegistration {
        var rng = SeededGenerator(seed: 7)
        return SIPRegistration(configuration: configuration ?? self.configuration(), using: &rng, cnonce: { "0a4f113b" })
    }

    private func sentRequests(_ actions: [SIPRegistrationAction]) -> [SIPRequest] {
        actions.compactMap { if case .sendRequest(let r) = $0 { return r } else { return nil } }
    }

    private func onlyRequest(_ actions: [SIPRegistrationAction], file: StaticString = #filePath, line: UInt = #line) throws -> SIPRequest {
        let requests = sentRequests(actions)
        XCTAssertEqual(requests.count, 1, "actions: \(actions)", file: file, line: line)
        return try XCTUnwrap(requests.first, file: file, line: line)
    }

    private func reply(_ request: SIPRequest, _ status: Int, _ extra: [(String, String)] = []) -> SIPResponse {
        var response = SIPResponse(replyingTo: request, statusCode: status, toTag: "srv1")
        for (name, value) in extra { response.headers.add(name, value) }
        return response
    }

    private func fields(_ request: SIPRequest) -> [String] { request.headers.map { "\($0.name): \($0.value)" } }

    // MARK: - Request content

    func testFirstRegisterHasEveryHeaderOfRFC3261Section10() throws {
        var registration = makeRegistration()
        XCTAssertEqual(registration.state, .idle)
        let request = try onlyRequest(registration.register(now: .zero))
        XCTAssertEqual(registration.state, .registering)
        XCTAssertEqual(request.method, .register)
        XCTAssertEqual(request.uri.description, "sip:example.com")
        let via = try request.headers.topVia()
        XCTAssertTrue(via.hasRFC3261Branch)
        let branch = try XCTUnwrap(via.branch)
        XCTAssertEqual(
            fields(request),
            [
                "Via: SIP/2.0/UDP 192.0.2.10:5060;rport;branch=\(branch)",
                "Max-Forwards: 70",
                "From: \"Alice\" <sip:alice@example.com>;tag=\(registration.fromTag)",
                "To: \"Alice\" <sip:alice@example.com>",
                "Call-ID: \(registration.callID)",
                "CSeq: 1 REGISTER",
                "Contact: <sip:alice@192.0.2.10:5060>",
                "Expires: 3600",
                "User-Agent: VoiceSDK/1.0",
                "Content-Length: 0",
            ])
        XCTAssertTrue(request.body.isEmpty)
        // The request survives a serialize/parse round trip.
        let parsed = try SIPMessageParser().parse(datagram: request.serialized())
        XCTAssertEqual(parsed.request, request)
    }

    func testRefreshKeepsCallIDAndTagWithIncreasingCSeqAndNewBranch() throws {
        var registration = makeRegistration()
        var now = MediaTime.zero
        let first = try onlyRequest(registration.register(now: now))
        let actions = registration.receiveResponse(reply(first, 200, [("Contact", "<sip:alice@192.0.2.10:5060>;expires=120")]), now: now)
        XCTAssertEqual(actions, [.startTimer(.refresh, after: .seconds(60)), .event(.registered(expires: 120))])
        XCTAssertEqual(registration.state, .registered(expires: 120))

        var branches: Set<String> = [try XCTUnwrap(first.headers.topVia().branch)]
        for round in 2...4 {
            now += .seconds(60)
            let refresh = try onlyRequest(registration.timerFired(.refresh, now: now))
            XCTAssertEqual(registration.state, .refreshing(expires: 120))
            XCTAssertEqual(try refresh.headers.cseq(), SIPCSeq(sequence: UInt32(round), method: .register))
            XCTAssertEqual(try refresh.headers.callID(), registration.callID)
            XCTAssertEqual(try refresh.headers.from().tag, registration.fromTag)
            XCTAssertNil(try refresh.headers.to().tag)
            XCTAssertEqual(refresh.headers.first("Expires"), "3600")
            XCTAssertTrue(branches.insert(try XCTUnwrap(refresh.headers.topVia().branch)).inserted)
            let again = registration.receiveResponse(
                reply(refresh, 200, [("Contact", "<sip:alice@192.0.2.10:5060>;expires=120")]), now: now)
            XCTAssertEqual(again, [.startTimer(.refresh, after: .seconds(60)), .event(.registered(expires: 120))])
        }
        XCTAssertEqual(registration.lastCSeq, 4)
    }

    // MARK: - Granted expiry

    func testGrantedExpiryComesFromOurContactAmongSeveral() throws {
        var registration = makeRegistration()
        let request = try onlyRequest(registration.register(now: .zero))
        // Other bindings of the AOR come first; ours is written with an uppercase host.
        let response = reply(
            request, 200,
            [
                ("Contact", "<sip:alice@198.51.100.7:5060>;expires=3000, <sip:alice@192.0.2.10:5060;transport=tcp>;expires=20"),
                ("Contact", "<sip:ALICE@192.0.2.10:5060>;expires=1800"),
                ("Expires", "900"),
            ])
        // The user part is case-sensitive: "ALICE" is not ours; the Expires header applies.
        XCTAssertEqual(
            registration.receiveResponse(response, now: .zero),
            [.startTimer(.refresh, after: .seconds(840)), .event(.registered(expires: 900))])

        var second = makeRegistration()
        let request2 = try onlyRequest(second.register(now: .zero))
        let response2 = reply(
            request2, 200,
            [("Contact", "<sip:alice@198.51.100.7:5060>;expires=3000, <sip:alice@192.0.2.10:5060>;q=0.5;expires=1800")])
        XCTAssertEqual(
            second.receiveResponse(response2, now: .zero),
            [.startTimer(.refresh, after: .seconds(1740)), .event(.registered(expires: 1800))])
    }

    func testGrantedExpiryFallsBackToExpiresHeaderThenToRequest() throws {
        var registration = makeRegistration()
        let request = try onlyRequest(registration.register(now: .zero))
        XCTAssertEqual(
            registration.receiveResponse(reply(request, 200, [("Expires", "600")]), now: .zero),
            [.startTimer(.refresh, after: .seconds(540)), .event(.registered(expires: 600))])

        var other = makeRegistration(configuration(expires: 300))
        let request2 = try onlyRequest(other.register(now: .zero))
        XCTAssertEqual(request2.headers.first("Expires"), "300")
        XCTAssertEqual(
            other.receiveResponse(reply(request2, 200), now: .zero),
            [.startTimer(.refresh, after: .seconds(240)), .event(.registered(expires: 300))])
    }

    func testRefreshRule() {
        let registration = makeRegistration()
        XCTAssertEqual(registration.refreshDelay(granted: 3600), .seconds(3540))
        XCTAssertEqual(registration.refreshDelay(granted: 121), .seconds(61))
        XCTAssertEqual(registration.refreshDelay(granted: 120), .seconds(60))
        XCTAssertEqual(registration.refreshDelay(granted: 60), .seconds(30))
        XCTAssertEqual(registration.refreshDelay(granted: 1), .milliseconds(500))
    }

    func testZeroGrantIsAFailureWithBackoff() throws {
        var registration = makeRegistration()
        let request = try onlyRequest(registration.register(now: .zero))
        let actions = registration.receiveResponse(reply(request, 200, [("Expires", "0")]), now: .zero)
        guard case .startTimer(.retry, let delay) = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(actions.last, .event(.failed(.finalResponse(statusCode: 200), willRetryAfter: delay)))
    }

    // MARK: - Authentication

    private let challenge = #"Digest realm="example.com", nonce="84a4cc6f3082121f32b42a2187831a9e", qop="auth", algorithm=MD5"#

    private func expectedDigest(nonceCount: String) -> String {
        let md5 = DigestAlgorithm.md5
        let ha1 = md5.hexDigest("alice:example.com:secret")
        let ha2 = md5.hexDigest("REGISTER:sip:example.com")
        let response = md5.hexDigest("\(ha1):84a4cc6f3082121f32b42a2187831a9e:\(nonceCount):0a4f113b:auth:\(ha2)")
        return response
    }

    func testUnauthorizedIsAnsweredWithNewCSeqAndAuthorization() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        let second = try onlyRequest(registration.receiveResponse(reply(first, 401, [("WWW-Authenticate", challenge)]), now: .zero))
        XCTAssertEqual(registration.state, .registering)
        XCTAssertEqual(try second.headers.cseq().sequence, 2)
        XCTAssertEqual(try second.headers.callID(), registration.callID)
        XCTAssertNotEqual(try second.headers.topVia().branch, try first.headers.topVia().branch)
        XCTAssertEqual(second.headers.first("Expires"), "3600")
        let authorization = try XCTUnwrap(second.headers.authorization.first)
        XCTAssertEqual(second.headers.authorization.count, 1)
        XCTAssertTrue(authorization.hasPrefix("Digest "), authorization)
        for part in [
            #"username="alice""#, #"realm="example.com""#, #"nonce="84a4cc6f3082121f32b42a2187831a9e""#,
            #"uri="sip:example.com""#, "nc=00000001", #"cnonce="0a4f113b""#,
            #"response="\#(expectedDigest(nonceCount: "00000001"))""#,
        ] {
            XCTAssertTrue(authorization.contains(part), "\(part) missing from \(authorization)")
        }
        // Authorization sits before User-Agent, after Expires.
        let names = second.headers.map(\.name)
        XCTAssertEqual(names.firstIndex(of: "Authorization"), (names.firstIndex(of: "Expires") ?? 0) + 1)

        XCTAssertEqual(
            registration.receiveResponse(reply(second, 200), now: .zero),
            [.startTimer(.refresh, after: .seconds(3540)), .event(.registered(expires: 3600))])
        // The refresh answers ahead with the cached nonce, counting up.
        let refresh = try onlyRequest(registration.timerFired(.refresh, now: .seconds(3540)))
        XCTAssertEqual(try refresh.headers.cseq().sequence, 3)
        let again = try XCTUnwrap(refresh.headers.authorization.first)
        XCTAssertTrue(again.contains("nc=00000002"), again)
        XCTAssertTrue(again.contains(#"response="\#(expectedDigest(nonceCount: "00000002"))""#), again)
    }

    func testProxyChallengeIsAnsweredWithProxyAuthorization() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        let second = try onlyRequest(
            registration.receiveResponse(reply(first, 407, [("Proxy-Authenticate", challenge)]), now: .zero))
        XCTAssertTrue(second.headers.authorization.isEmpty)
        XCTAssertEqual(second.headers.proxyAuthorization.count, 1)
        XCTAssertTrue(second.headers.proxyAuthorization[0].contains(#"uri="sip:example.com""#))
    }

    func testSecondRejectionFailsWithoutLoop() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        let second = try onlyRequest(registration.receiveResponse(reply(first, 401, [("WWW-Authenticate", challenge)]), now: .zero))
        let rejected = #"Digest realm="example.com", nonce="bbbbbbbb", qop="auth""#
        let actions = registration.receiveResponse(reply(second, 401, [("WWW-Authenticate", rejected)]), now: .zero)
        XCTAssertEqual(actions, [.event(.failed(.authenticationFailed, willRetryAfter: nil))])
        XCTAssertEqual(registration.state, .failed(.authenticationFailed))
        XCTAssertEqual(registration.timerFired(.retry, now: .seconds(60)), [])
        XCTAssertEqual(registration.timerFired(.refresh, now: .seconds(60)), [])
    }

    func testChallengeWithoutCredentialsIsUnanswerable() throws {
        var registration = makeRegistration(configuration(credentials: []))
        let first = try onlyRequest(registration.register(now: .zero))
        let actions = registration.receiveResponse(reply(first, 401, [("WWW-Authenticate", challenge)]), now: .zero)
        XCTAssertEqual(actions, [.event(.failed(.challengeUnanswerable, willRetryAfter: nil))])
        XCTAssertEqual(registration.state, .failed(.challengeUnanswerable))
        // register() starts over from failed.
        let again = try onlyRequest(registration.register(now: .seconds(5)))
        XCTAssertEqual(try again.headers.cseq().sequence, 2)
        XCTAssertEqual(registration.state, .registering)
    }

    // MARK: - 423

    func testIntervalTooBriefRetriesWithMinExpires() throws {
        var registration = makeRegistration(configuration(expires: 60))
        let first = try onlyRequest(registration.register(now: .zero))
        let second = try onlyRequest(registration.receiveResponse(reply(first, 423, [("Min-Expires", "600")]), now: .zero))
        XCTAssertEqual(second.headers.first("Expires"), "600")
        XCTAssertEqual(try second.headers.cseq().sequence, 2)
        XCTAssertEqual(registration.requestedExpires, 600)
        XCTAssertEqual(
            registration.receiveResponse(reply(second, 200), now: .zero),
            [.startTimer(.refresh, after: .seconds(540)), .event(.registered(expires: 600))])
        let refresh = try onlyRequest(registration.timerFired(.refresh, now: .seconds(540)))
        XCTAssertEqual(refresh.headers.first("Expires"), "600")
    }

    func testIntervalTooBriefWithoutUsableMinExpiresFails() throws {
        for extra in [[], [("Min-Expires", "30")], [("Min-Expires", "abc")]] {
            var registration = makeRegistration(configuration(expires: 60))
            let first = try onlyRequest(registration.register(now: .zero))
            let actions = registration.receiveResponse(reply(first, 423, extra), now: .zero)
            XCTAssertTrue(sentRequests(actions).isEmpty, "\(extra)")
            guard case .event(.failed(.finalResponse(statusCode: 423), let delay?)) = actions.last else {
                return XCTFail("\(actions)")
            }
            XCTAssertEqual(actions.first, .startTimer(.retry, after: delay))
        }
    }

    func testRepeatedIntervalTooBriefStopsAfterTwoRounds() throws {
        var registration = makeRegistration(configuration(expires: 60))
        var request = try onlyRequest(registration.register(now: .zero))
        for minimum in [120, 240] {
            request = try onlyRequest(registration.receiveResponse(reply(request, 423, [("Min-Expires", "\(minimum)")]), now: .zero))
        }
        let actions = registration.receiveResponse(reply(request, 423, [("Min-Expires", "480")]), now: .zero)
        XCTAssertTrue(sentRequests(actions).isEmpty)
        guard case .waitingToRetry(.finalResponse(statusCode: 423), _) = registration.state else {
            return XCTFail("\(registration.state)")
        }
    }

    // MARK: - Failures and back-off

    func testFailuresBackOffDoublingWithJitterUpToTheCap() throws {
        var registration = makeRegistration()
        var now = MediaTime.zero
        var request = try onlyRequest(registration.register(now: now))
        var ceilings: [Int64] = []
        for _ in 0..<9 {
            let actions = registration.receiveResponse(reply(request, 503), now: now)
            XCTAssertEqual(actions.count, 2)
            guard case .startTimer(.retry, let delay) = actions.first else { return XCTFail("\(actions)") }
            XCTAssertEqual(actions.last, .event(.failed(.finalResponse(statusCode: 503), willRetryAfter: delay)))
            XCTAssertEqual(registration.state, .waitingToRetry(.finalResponse(statusCode: 503), retryAfter: delay))
            ceilings.append(delay.nanoseconds)
            now += delay
            request = try onlyRequest(registration.timerFired(.retry, now: now))
            XCTAssertEqual(registration.state, .registering)
        }
        let expected: [Int64] = [30, 60, 120, 240, 480, 960, 1800, 1800, 1800]
        for (delay, ceiling) in zip(ceilings, expected) {
            XCTAssertLessThanOrEqual(delay, ceiling * 1_000_000_000)
            XCTAssertGreaterThanOrEqual(delay, ceiling * 500_000_000)
        }
        XCTAssertEqual(try request.headers.cseq().sequence, 10)
        // Jitter: not every delay sits on its ceiling.
        XCTAssertTrue(zip(ceilings, expected).contains { $0 != $1 * 1_000_000_000 })

        // Success resets the back-off.
        _ = registration.receiveResponse(reply(request, 200), now: now)
        let refresh = try onlyRequest(registration.timerFired(.refresh, now: now + .seconds(3540)))
        let actions = registration.receiveResponse(reply(refresh, 500), now: now)
        guard case .startTimer(.retry, let delay) = actions.first else { return XCTFail("\(actions)") }
        XCTAssertLessThanOrEqual(delay, .seconds(30))
    }

    func testRetryPolicyCeilingsAndJitterBounds() {
        let policy = SIPRegistration.RetryPolicy()
        XCTAssertEqual(policy.ceiling(afterFailures: 1), .seconds(30))
        XCTAssertEqual(policy.ceiling(afterFailures: 2), .seconds(60))
        XCTAssertEqual(policy.ceiling(afterFailures: 7), .seconds(1800))
        XCTAssertEqual(policy.ceiling(afterFailures: 10_000), .seconds(1800))
        XCTAssertEqual(policy.delay(afterFailures: 1, unit: 0), .seconds(15))
        XCTAssertEqual(policy.delay(afterFailures: 1, unit: 1), .seconds(30))
        XCTAssertEqual(policy.delay(afterFailures: 1, unit: 0.5), .seconds(22.5))
        let flat = SIPRegistration.RetryPolicy(initialDelay: .seconds(5), maximumDelay: .seconds(5), jitterFraction: 0)
        XCTAssertEqual(flat.delay(afterFailures: 3, unit: 0.1), .seconds(5))
    }

    func testRetryAfterLengthensTheDelay() throws {
        var registration = makeRegistration()
        let request = try onlyRequest(registration.register(now: .zero))
        let actions = registration.receiveResponse(reply(request, 503, [("Retry-After", "300 (maintenance)")]), now: .zero)
        XCTAssertEqual(
            actions,
            [.startTimer(.retry, after: .seconds(300)), .event(.failed(.finalResponse(statusCode: 503), willRetryAfter: .seconds(300)))])
    }

    func testTimeoutAndTransportErrorRetryAfterBackoff() throws {
        for failure in [SIPFailure.transactionTimeout, .transportError, .connectionError] {
            var registration = makeRegistration()
            _ = try onlyRequest(registration.register(now: .zero))
            let actions = registration.requestFailed(failure: failure, now: .seconds(32))
            guard case .startTimer(.retry, let delay) = actions.first else { return XCTFail("\(actions)") }
            XCTAssertEqual(actions.last, .event(.failed(failure, willRetryAfter: delay)))
            let retry = try onlyRequest(registration.timerFired(.retry, now: .seconds(32) + delay))
            XCTAssertEqual(try retry.headers.cseq().sequence, 2)
            XCTAssertEqual(try retry.headers.callID(), registration.callID)
        }
    }

    func testRefreshFailureRetriesAndKeepsBindingForUnregister() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.receiveResponse(reply(first, 200), now: .zero)
        _ = try onlyRequest(registration.timerFired(.refresh, now: .seconds(3540)))
        let actions = registration.requestFailed(failure: .transactionTimeout, now: .seconds(3572))
        guard case .startTimer(.retry, _) = actions.first else { return XCTFail("\(actions)") }
        // The old binding may still hold: unregister removes it.
        let unregister = registration.unregister(now: .seconds(3580))
        XCTAssertEqual(unregister.first, .cancelTimer(.retry))
        let request = try onlyRequest(unregister)
        XCTAssertEqual(request.headers.first("Expires"), "0")
    }

    // MARK: - Unregistration

    func testUnregisterCancelsRefreshAndSendsExpiresZero() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.receiveResponse(reply(first, 200), now: .zero)
        let actions = registration.unregister(now: .seconds(100))
        XCTAssertEqual(actions.first, .cancelTimer(.refresh))
        XCTAssertEqual(registration.state, .unregistering)
        let request = try onlyRequest(actions)
        let branch = try XCTUnwrap(request.headers.topVia().branch)
        XCTAssertEqual(
            fields(request),
            [
                "Via: SIP/2.0/UDP 192.0.2.10:5060;rport;branch=\(branch)",
                "Max-Forwards: 70",
                "From: \"Alice\" <sip:alice@example.com>;tag=\(registration.fromTag)",
                "To: \"Alice\" <sip:alice@example.com>",
                "Call-ID: \(registration.callID)",
                "CSeq: 2 REGISTER",
                "Contact: <sip:alice@192.0.2.10:5060>;expires=0",
                "Expires: 0",
                "User-Agent: VoiceSDK/1.0",
                "Content-Length: 0",
            ])
        XCTAssertEqual(registration.receiveResponse(reply(request, 200), now: .seconds(100)), [.event(.unregistered)])
        XCTAssertEqual(registration.state, .unregistered)
        XCTAssertEqual(registration.timerFired(.refresh, now: .seconds(3540)), [])
    }

    func testUnregisterChallengeIsAnsweredOnTheUnregister() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.receiveResponse(reply(first, 200), now: .zero)
        let unregister = try onlyRequest(registration.unregister(now: .seconds(10)))
        let retry = try onlyRequest(
            registration.receiveResponse(reply(unregister, 401, [("WWW-Authenticate", challenge)]), now: .seconds(10)))
        XCTAssertEqual(retry.headers.first("Expires"), "0")
        XCTAssertEqual(retry.headers.authorization.count, 1)
        XCTAssertEqual(registration.receiveResponse(reply(retry, 200), now: .seconds(10)), [.event(.unregistered)])
    }

    func testUnregisterWhileRegisterInFlightWaitsForIt() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        XCTAssertEqual(registration.unregister(now: .seconds(1)), [])
        XCTAssertEqual(registration.state, .unregistering)
        // The REGISTER in flight succeeds: the binding exists, so it is removed at once.
        let removal = try onlyRequest(registration.receiveResponse(reply(first, 200), now: .seconds(2)))
        XCTAssertEqual(removal.headers.first("Expires"), "0")
        XCTAssertEqual(try removal.headers.cseq().sequence, 2)
        XCTAssertEqual(registration.receiveResponse(reply(removal, 200), now: .seconds(3)), [.event(.unregistered)])
        XCTAssertEqual(registration.state, .unregistered)
    }

    func testUnregisterWhileChallengedRegisterInFlightAnswersOnTheUnregister() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.unregister(now: .seconds(1))
        let next = try onlyRequest(registration.receiveResponse(reply(first, 401, [("WWW-Authenticate", challenge)]), now: .seconds(1)))
        XCTAssertEqual(next.headers.first("Expires"), "0")
        XCTAssertEqual(next.headers.authorization.count, 1)
    }

    func testUnregisterWhileFirstRegisterInFlightThatFailsNeedsNoRequest() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.unregister(now: .seconds(1))
        XCTAssertEqual(registration.receiveResponse(reply(first, 403), now: .seconds(2)), [.event(.unregistered)])
        XCTAssertEqual(registration.state, .unregistered)

        // A timeout leaves the binding unknown: remove it to be sure.
        var other = makeRegistration()
        _ = try onlyRequest(other.register(now: .zero))
        _ = other.unregister(now: .seconds(1))
        let removal = try onlyRequest(other.requestFailed(failure: .transactionTimeout, now: .seconds(32)))
        XCTAssertEqual(removal.headers.first("Expires"), "0")
    }

    func testUnregisterWhileWaitingToRetryCancelsTheRetry() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.receiveResponse(reply(first, 500), now: .zero)
        XCTAssertEqual(registration.unregister(now: .seconds(1)), [.cancelTimer(.retry), .event(.unregistered)])
        XCTAssertEqual(registration.timerFired(.retry, now: .seconds(30)), [])
    }

    func testUnregisterFailureIsReportedWithoutRetry() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.receiveResponse(reply(first, 200), now: .zero)
        let removal = try onlyRequest(registration.unregister(now: .seconds(5)))
        XCTAssertEqual(
            registration.receiveResponse(reply(removal, 500), now: .seconds(5)),
            [.event(.failed(.finalResponse(statusCode: 500), willRetryAfter: nil))])
        XCTAssertEqual(registration.state, .failed(.finalResponse(statusCode: 500)))
    }

    func testUnregisterWithNothingRegisteredReportsAtOnce() {
        var registration = makeRegistration()
        XCTAssertEqual(registration.unregister(now: .zero), [.event(.unregistered)])
        XCTAssertEqual(registration.state, .unregistered)
    }

    func testRegisterDuringUnregisterResumesAfterIt() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.receiveResponse(reply(first, 200), now: .zero)
        let removal = try onlyRequest(registration.unregister(now: .seconds(5)))
        XCTAssertEqual(registration.register(now: .seconds(6)), [])
        let actions = registration.receiveResponse(reply(removal, 200), now: .seconds(7))
        XCTAssertEqual(actions.first, .event(.unregistered))
        let again = try onlyRequest(actions)
        XCTAssertEqual(again.headers.first("Expires"), "3600")
        XCTAssertEqual(try again.headers.cseq().sequence, 3)
        XCTAssertEqual(registration.state, .registering)
    }

    func testRegisterWhileRegisteredRefreshesNow() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        _ = registration.receiveResponse(reply(first, 200), now: .zero)
        let actions = registration.register(now: .seconds(10))
        XCTAssertEqual(actions.first, .cancelTimer(.refresh))
        XCTAssertEqual(try onlyRequest(actions).headers.cseq().sequence, 2)
        XCTAssertEqual(registration.state, .refreshing(expires: 3600))
        XCTAssertEqual(registration.register(now: .seconds(11)), [], "one REGISTER in flight at a time")
    }

    // MARK: - Stray input

    func testIgnoresProvisionalStaleAndForeignResponses() throws {
        var registration = makeRegistration()
        let first = try onlyRequest(registration.register(now: .zero))
        XCTAssertEqual(registration.receiveResponse(reply(first, 100), now: .zero), [])
        var wrongCSeq = reply(first, 200)
        wrongCSeq.headers.set("CSeq", "9 REGISTER")
        XCTAssertEqual(registration.receiveResponse(wrongCSeq, now: .zero), [])
        var wrongCallID = reply(first, 200)
        wrongCallID.headers.set("Call-ID", "other@host")
        XCTAssertEqual(registration.receiveResponse(wrongCallID, now: .zero), [])
        var wrongMethod = reply(first, 200)
        wrongMethod.headers.set("CSeq", "1 INVITE")
        XCTAssertEqual(registration.receiveResponse(wrongMethod, now: .zero), [])
        XCTAssertEqual(registration.state, .registering)
        XCTAssertEqual(registration.timerFired(.refresh, now: .zero), [])
        XCTAssertEqual(registration.timerFired(.retry, now: .zero), [])
        // The real answer still lands, and a duplicate afterwards is ignored.
        XCTAssertEqual(registration.receiveResponse(reply(first, 200), now: .zero).count, 2)
        XCTAssertEqual(registration.receiveResponse(reply(first, 200), now: .zero), [])
        XCTAssertEqual(registration.requestFailed(failure: .transportError, now: .zero), [])
    }

    func testSameSeedGivesSameIdentifiers() throws {
        var a = makeRegistration()
        var b = makeRegistration()
        XCTAssertEqual(a.callID, b.callID)
        XCTAssertEqual(try onlyRequest(a.register(now: .zero)), try onlyRequest(b.register(now: .zero)))
        XCTAssertFalse(a.callID.isEmpty)
        XCTAssertNotEqual(a.callID, a.fromTag)
    }
}
