import Foundation
import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPDigestVerifierTests: XCTestCase {
    private let verifier = SIPDigestVerifier(realm: "office", credentials: [SIPAuthCredentials(username: "alice", password: "s3cret")])

    private func answer(_ challengeValue: String, user: String = "alice", password: String = "s3cret", method: String = "INVITE") throws -> String {
        let challenge = try DigestChallenge(parsing: challengeValue)
        return DigestAuthorization(
            answering: challenge, username: user, password: password, method: method, uri: "sip:bob@127.0.0.1",
            cnonce: "0a4f113b", nonceCount: 1
        ).headerValue
    }

    func testTheRightAnswerAuthenticates() throws {
        let value = try answer(verifier.challenge(now: .seconds(100)))
        XCTAssertEqual(verifier.verify(value, method: "INVITE", now: .seconds(101)), .authenticated(username: "alice"))
        XCTAssertEqual(verifier.verify(value, method: "BYE", now: .seconds(101)), .rejected, "the method is part of the digest")
    }

    func testWrongPasswordUnknownUserAndForeignNonceAreRejected() throws {
        XCTAssertEqual(verifier.verify(try answer(verifier.challenge(now: .seconds(100)), password: "guess"), method: "INVITE", now: .seconds(101)), .rejected)
        XCTAssertEqual(verifier.verify(try answer(verifier.challenge(now: .seconds(100)), user: "eve"), method: "INVITE", now: .seconds(101)), .rejected)
        let other = SIPDigestVerifier(realm: "office", credentials: [SIPAuthCredentials(username: "alice", password: "s3cret")])
        XCTAssertEqual(verifier.verify(try answer(other.challenge(now: .seconds(100))), method: "INVITE", now: .seconds(101)), .rejected, "a nonce another key made")
        let forged = "Digest realm=\"office\", nonce=\"ffffffffff.00000000000000000000000000000000\", algorithm=MD5, qop=\"auth\""
        XCTAssertEqual(verifier.verify(try answer(forged), method: "INVITE", now: .seconds(101)), .rejected, "a made-up nonce")
    }

    func testAnOldNonceIsStaleNotWrong() throws {
        let value = try answer(verifier.challenge(now: .seconds(1_000)))
        XCTAssertEqual(verifier.verify(value, method: "INVITE", now: .seconds(1_030)), .authenticated(username: "alice"), "30 s: still good")
        XCTAssertEqual(verifier.verify(value, method: "INVITE", now: .seconds(1_031)), .stale, "31 s on the verifier's clock")
        XCTAssertTrue(verifier.challenge(now: .seconds(1_031), stale: true).contains("stale=true"))
        let wrong = try answer(verifier.challenge(now: .seconds(1_000)), password: "guess")
        XCTAssertEqual(verifier.verify(wrong, method: "INVITE", now: .seconds(1_031)), .rejected, "stale only for good credentials")
    }

    func testMalformedAuthorizationValuesAreRejectedNotCrashes() {
        for value in ["", "Digest", "Basic YWxpY2U6czNjcmV0", "Digest username=", "Digest username=\"alice\", realm=\"office\"",
            "Digest username=\"alice\", realm=\"office\", nonce=\"..\", uri=\"x\", response=\"y\"",
            "Digest " + String(repeating: "a=b, ", count: 5_000), "Digest username=\"\u{0}\"", "Digest realm=\"office\", nonce=\"zz.zz\""]
        {
            XCTAssertEqual(verifier.verify(value, method: "INVITE", now: .seconds(101)), .rejected, value.prefix(40).description)
        }
    }
}
