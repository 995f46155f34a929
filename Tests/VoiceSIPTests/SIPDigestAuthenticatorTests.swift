import Foundation
import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPDigestAuthenticatorTests: XCTestCase {
    let realm = "sip.example.com"
    let uri = "sip:sip.example.com"

    func makeAuthenticator(_ creds: [SIPAuthCredentials]? = nil) -> SIPAuthenticator {
        SIPAuthenticator(
            credentials: creds ?? [SIPAuthCredentials(username: "alice", password: "secret", realm: realm)],
            cnonce: { "xyz" })
    }

    func challenge(nonce: String = "abc", stale: Bool = false, algorithm: String = "MD5", realm: String? = nil) -> String {
        "Digest realm=\"\(realm ?? self.realm)\", nonce=\"\(nonce)\", algorithm=\(algorithm), qop=\"auth\""
            + (stale ? ", stale=true" : "")
    }

    func parameter(_ name: String, in header: SIPAuthorizationHeader) -> String? {
        for part in header.value.dropFirst("Digest ".count).components(separatedBy: ", ") {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pieces.count == 2, pieces[0] == name { return pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }

    func testAnswersA401WithAuthorization() throws {
        var auth = makeAuthenticator()
        let headers = try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri)
        XCTAssertEqual(headers.count, 1)
        XCTAssertEqual(headers[0].name, "Authorization")
        XCTAssertEqual(headers[0].realm, realm)
        XCTAssertEqual(parameter("nc", in: headers[0]), "00000001")
        XCTAssertEqual(parameter("cnonce", in: headers[0]), "xyz")
        XCTAssertEqual(parameter("username", in: headers[0]), "alice")
        // Same formula and inputs as the independently computed variant vectors (nc 1).
        let expected = DigestAuthorization(
            answering: DigestChallenge(realm: realm, nonce: "abc"), username: "alice", password: "secret",
            method: "REGISTER", uri: uri, cnonce: "xyz", nonceCount: 1)
        XCTAssertEqual(headers[0].value, expected.headerValue)
    }

    func testAnswersA407WithProxyAuthorization() throws {
        var auth = makeAuthenticator()
        let headers = try auth.answer(challenges: [challenge()], origin: .proxy, method: "INVITE", uri: "sip:bob@example.com")
        XCTAssertEqual(headers.map(\.name), ["Proxy-Authorization"])
    }

    func testNonceCountIncrementsPerNonceAndResetsForANewOne() throws {
        var auth = makeAuthenticator()
        _ = try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri)
        auth.requestWasAccepted()
        XCTAssertEqual(auth.lastNonceCount(realm: realm, origin: .server), 1)
        let second = auth.authorizationHeaders(method: "REGISTER", uri: uri)
        XCTAssertEqual(second.count, 1)
        XCTAssertEqual(parameter("nc", in: second[0]), "00000002")
        XCTAssertEqual(parameter("response", in: second[0]), "fe5479ead6ead6b5984a5af8c41cb988")
        let third = auth.authorizationHeaders(method: "REGISTER", uri: uri)
        XCTAssertEqual(parameter("nc", in: third[0]), "00000003")
        auth.requestWasAccepted()
        // The server moves to a new nonce: count restarts at 1.
        let fresh = try auth.answer(challenges: [challenge(nonce: "def")], origin: .server, method: "REGISTER", uri: uri)
        XCTAssertEqual(parameter("nc", in: fresh[0]), "00000001")
        XCTAssertEqual(parameter("nonce", in: fresh[0]), "def")
    }

    func testNoHeadersBeforeAnyChallenge() {
        var auth = makeAuthenticator()
        XCTAssertEqual(auth.authorizationHeaders(method: "REGISTER", uri: uri), [])
        XCTAssertNil(auth.lastNonceCount(realm: realm, origin: .server))
    }

    func testGivesUpAfterOneRetryWhenRejectedAgain() throws {
        var auth = makeAuthenticator()
        _ = try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri)
        // Wrong password: the server challenges again, with a new nonce but no stale=true.
        XCTAssertThrowsError(
            try auth.answer(challenges: [challenge(nonce: "second")], origin: .server, method: "REGISTER", uri: uri)
        ) { error in
            XCTAssertEqual(error as? SIPAuthError, .authenticationFailed)
            XCTAssertEqual((error as? SIPAuthError)?.detail, realm)
        }
        // And keeps giving up: never loops.
        XCTAssertThrowsError(try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri))
    }

    func testStaleRetriesWithTheNewNonce() throws {
        var auth = makeAuthenticator()
        _ = try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri)
        let retry = try auth.answer(
            challenges: [challenge(nonce: "fresh", stale: true)], origin: .server, method: "REGISTER", uri: uri)
        XCTAssertEqual(parameter("nonce", in: retry[0]), "fresh")
        XCTAssertEqual(parameter("nc", in: retry[0]), "00000001")
        // The fresh nonce is rejected without stale: give up.
        XCTAssertThrowsError(
            try auth.answer(challenges: [challenge(nonce: "third")], origin: .server, method: "REGISTER", uri: uri)
        ) { XCTAssertEqual($0 as? SIPAuthError, .authenticationFailed) }
    }

    func testStaleWithTheSameNonceIsNotRetried() throws {
        var auth = makeAuthenticator()
        _ = try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri)
        XCTAssertThrowsError(
            try auth.answer(challenges: [challenge(stale: true)], origin: .server, method: "REGISTER", uri: uri)
        ) { XCTAssertEqual($0 as? SIPAuthError, .authenticationFailed) }
    }

    func testStaleRetriesAreBounded() throws {
        var auth = makeAuthenticator()
        _ = try auth.answer(challenges: [challenge(nonce: "n0")], origin: .server, method: "REGISTER", uri: uri)
        for i in 1...SIPAuthenticator.maxStaleRetries {
            XCTAssertNoThrow(
                try auth.answer(challenges: [challenge(nonce: "n\(i)", stale: true)], origin: .server, method: "REGISTER", uri: uri))
        }
        XCTAssertThrowsError(
            try auth.answer(challenges: [challenge(nonce: "last", stale: true)], origin: .server, method: "REGISTER", uri: uri)
        ) { XCTAssertEqual($0 as? SIPAuthError, .authenticationFailed) }
    }

    func testAcceptedRequestAllowsAFreshChallengeLater() throws {
        var auth = makeAuthenticator()
        _ = try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri)
        auth.requestWasAccepted()
        // An hour later the registrar's nonce expired and it challenges without stale.
        let headers = try auth.answer(challenges: [challenge(nonce: "later")], origin: .server, method: "REGISTER", uri: uri)
        XCTAssertEqual(parameter("nonce", in: headers[0]), "later")
    }

    func testNewCredentialsResetTheVerdict() throws {
        var auth = makeAuthenticator()
        _ = try auth.answer(challenges: [challenge()], origin: .server, method: "REGISTER", uri: uri)
        auth.setCredentials([SIPAuthCredentials(username: "alice", password: "right")])
        XCTAssertNoThrow(try auth.answer(challenges: [challenge(nonce: "n2")], origin: .server, method: "REGISTER", uri: uri))
    }

    func testPrefersSHA256AndSkipsUnsupportedChallenges() throws {
        var auth = makeAuthenticator()
        let headers = try auth.answer(
            challenges: [
                "Digest realm=\"\(realm)\", nonce=\"a\", algorithm=SHA-512-256, qop=\"auth\"",
                "Basic realm=\"\(realm)\"",
                challenge(nonce: "m", algorithm: "MD5"),
                challenge(nonce: "s", algorithm: "SHA-256"),
            ], origin: .server, method: "REGISTER", uri: uri)
        XCTAssertEqual(headers.count, 1)
        XCTAssertEqual(parameter("algorithm", in: headers[0]), "SHA-256")
        XCTAssertEqual(parameter("nonce", in: headers[0]), "s")
        XCTAssertEqual(parameter("response", in: headers[0])?.count, 64)
    }

    func testOnlyUnusableChallengesThrowTheParseError() {
        var auth = makeAuthenticator()
        XCTAssertThrowsError(
            try auth.answer(
                challenges: ["Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256"], origin: .server, method: "REGISTER", uri: uri)
        ) { XCTAssertEqual($0 as? SIPAuthError, .unsupportedAlgorithm) }
        XCTAssertThrowsError(
            try auth.answer(challenges: ["Digest realm=\"r"], origin: .server, method: "REGISTER", uri: uri)
        ) { XCTAssertEqual($0 as? SIPAuthError, .malformedChallenge) }
        XCTAssertThrowsError(try auth.answer(challenges: [], origin: .server, method: "REGISTER", uri: uri)) {
            XCTAssertEqual($0 as? SIPAuthError, .missingParameter)
        }
    }

    func testNoCredentialsForTheRealm() {
        var auth = makeAuthenticator()
        XCTAssertThrowsError(
            try auth.answer(challenges: [challenge(realm: "other.example.com")], origin: .server, method: "REGISTER", uri: uri)
        ) { error in
            XCTAssertEqual(error as? SIPAuthError, .noCredentials)
            XCTAssertEqual((error as? SIPAuthError)?.detail, "other.example.com")
        }
    }

    func testWildcardCredentialsAnswerAnyRealm() throws {
        var auth = makeAuthenticator([SIPAuthCredentials(username: "bob", password: "pw")])
        let headers = try auth.answer(challenges: [challenge(realm: "anything")], origin: .server, method: "INVITE", uri: uri)
        XCTAssertEqual(parameter("realm", in: headers[0]), "anything")
        XCTAssertEqual(parameter("username", in: headers[0]), "bob")
    }

    func testRetryCarriesEveryCachedRealm() throws {
        var auth = makeAuthenticator([SIPAuthCredentials(username: "bob", password: "pw")])
        _ = try auth.answer(challenges: [challenge(realm: "proxy1")], origin: .proxy, method: "INVITE", uri: uri)
        // The first proxy let it through; the next hop challenges for its own realm.
        let headers = try auth.answer(challenges: [challenge(realm: "proxy2")], origin: .proxy, method: "INVITE", uri: uri)
        XCTAssertEqual(headers.map(\.realm), ["proxy2", "proxy1"])
        XCTAssertEqual(parameter("nc", in: headers[1]), "00000002")
    }

    func testBearerChallengeIsAnsweredWithTheToken() throws {
        var auth = makeAuthenticator([SIPAuthCredentials(bearerToken: "eyJhbGciOi.eyJzdWIi.c2ln")])
        let headers = try auth.answer(
            challenges: [#"Bearer realm="atlanta.com", scope="sip", authz_server="https://as.atlanta.com""#],
            origin: .server, method: "REGISTER", uri: uri)
        XCTAssertEqual(headers, [SIPAuthorizationHeader(origin: .server, realm: "atlanta.com", value: "Bearer eyJhbGciOi.eyJzdWIi.c2ln")])
        // A rejected token is not retried.
        XCTAssertThrowsError(
            try auth.answer(
                challenges: [#"Bearer realm="atlanta.com", error="invalid_token""#], origin: .server, method: "REGISTER", uri: uri)
        ) { XCTAssertEqual($0 as? SIPAuthError, .authenticationFailed) }
    }

    func testBearerPreferredOverDigestWhenATokenIsConfigured() throws {
        var auth = makeAuthenticator([SIPAuthCredentials(username: "alice", password: "pw", bearerToken: "tok")])
        let headers = try auth.answer(
            challenges: [challenge(realm: "r"), #"Bearer realm="r""#], origin: .server, method: "REGISTER", uri: uri)
        XCTAssertEqual(headers.map(\.value), ["Bearer tok"])
    }

    func testBearerWithoutTokenOrWithABadTokenIsNoCredentials() {
        var noToken = makeAuthenticator()
        XCTAssertThrowsError(try noToken.answer(challenges: ["Bearer realm=\"r\""], origin: .server, method: "REGISTER", uri: uri)) {
            XCTAssertEqual($0 as? SIPAuthError, .noCredentials)
        }
        var badToken = makeAuthenticator([SIPAuthCredentials(bearerToken: "abc\r\nVia: evil")])
        XCTAssertThrowsError(try badToken.answer(challenges: ["Bearer"], origin: .server, method: "REGISTER", uri: uri)) {
            XCTAssertEqual($0 as? SIPAuthError, .noCredentials)
        }
    }

    func testRandomCNonceIs32HexDigitsAndVaries() {
        let a = SIPAuthenticator.randomCNonce()
        let b = SIPAuthenticator.randomCNonce()
        XCTAssertEqual(a.count, 32)
        XCTAssertTrue(a.allSatisfy(\.isHexDigit))
        XCTAssertNotEqual(a, b)
    }

    func testCredentialsDescriptionHidesThePassword() {
        let c = SIPAuthCredentials(username: "alice", password: "hunter2", bearerToken: "tok")
        XCTAssertFalse(c.description.contains("hunter2"))
        XCTAssertFalse(c.description.contains("tok"))
    }
}
