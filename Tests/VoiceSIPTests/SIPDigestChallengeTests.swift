import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPDigestChallengeTests: XCTestCase {
    /// RFC 2617 §3.5, typed in with its line folds.
    static let rfc2617Challenge = """
        Digest
                         realm="testrealm@host.com",
                         qop="auth,auth-int",
                         nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093",
                         opaque="5ccc069c403ebaf9f0171e9517f40e41"
        """

    /// RFC 7616 §3.9.1, first challenge (SHA-256).
    static let rfc7616SHA256Challenge = """
        Digest
               realm="http-auth@example.org",
               qop="auth, auth-int",
               algorithm=SHA-256,
               nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
               opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        """

    /// RFC 7616 §3.9.1, second challenge (MD5).
    static let rfc7616MD5Challenge = """
        Digest
               realm="http-auth@example.org",
               qop="auth, auth-int",
               algorithm=MD5,
               nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
               opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        """

    func testParsesRFC2617Challenge() throws {
        let c = try DigestChallenge(parsing: Self.rfc2617Challenge)
        XCTAssertEqual(c.realm, "testrealm@host.com")
        XCTAssertEqual(c.nonce, "dcd98b7102dd2f0e8b11d0f600bfb0c093")
        XCTAssertEqual(c.opaque, "5ccc069c403ebaf9f0171e9517f40e41")
        XCTAssertEqual(c.qopOptions, ["auth", "auth-int"])
        XCTAssertEqual(c.algorithm, .md5)
        XCTAssertFalse(c.stale)
        XCTAssertEqual(c.selectedQOP, .auth)
    }

    func testParsesRFC7616Challenges() throws {
        let sha = try DigestChallenge(parsing: Self.rfc7616SHA256Challenge)
        XCTAssertEqual(sha.algorithm, .sha256)
        XCTAssertEqual(sha.realm, "http-auth@example.org")
        XCTAssertEqual(sha.nonce, "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v")
        XCTAssertEqual(sha.opaque, "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
        XCTAssertEqual(sha.qopOptions, ["auth", "auth-int"])
        let md5 = try DigestChallenge(parsing: Self.rfc7616MD5Challenge)
        XCTAssertEqual(md5.algorithm, .md5)
    }

    /// RFC 3261 §22.4 / §25.1 form, as a SIP registrar sends it.
    func testParsesSIPChallengeWithStaleAndCaseInsensitiveNames() throws {
        let c = try DigestChallenge(
            parsing: #"DIGEST REALM="atlanta.com", Nonce="84a4cc6f3082121f32b42a2187831a9e", STALE=TRUE, algorithm=md5-sess, qop="auth""#)
        XCTAssertEqual(c.realm, "atlanta.com")
        XCTAssertTrue(c.stale)
        XCTAssertEqual(c.algorithm, .md5Sess)
        XCTAssertNil(c.opaque)
    }

    func testAlgorithmTokens() {
        XCTAssertEqual(DigestAlgorithm(token: "MD5"), .md5)
        XCTAssertEqual(DigestAlgorithm(token: "MD5-sess"), .md5Sess)
        XCTAssertEqual(DigestAlgorithm(token: "sha-256"), .sha256)
        XCTAssertEqual(DigestAlgorithm(token: "SHA-256-SESS"), .sha256Sess)
        XCTAssertNil(DigestAlgorithm(token: "SHA-512-256"))
        XCTAssertTrue(DigestAlgorithm.sha256Sess.isSession)
        XCTAssertFalse(DigestAlgorithm.sha256.isSession)
    }

    func testQuotedStringEscapesAndUnknownParametersAreKept() throws {
        let c = try DigestChallenge(
            parsing: #"Digest realm="a \"quoted\" realm", nonce=abc123, domain="sip:example.com", charset=UTF-8"#)
        XCTAssertEqual(c.realm, #"a "quoted" realm"#)
        XCTAssertEqual(c.nonce, "abc123")
        XCTAssertEqual(c.qopOptions, [])
        XCTAssertNil(c.selectedQOP)
    }

    func testEmptyListElementsAreSkipped() throws {
        let c = try DigestChallenge(parsing: #"Digest ,realm="r",, nonce="n" ,"#)
        XCTAssertEqual(c.realm, "r")
        XCTAssertEqual(c.nonce, "n")
    }

    func testAuthIntOnlyIsSelected() throws {
        let c = try DigestChallenge(parsing: #"Digest realm="r", nonce="n", qop="auth-int""#)
        XCTAssertEqual(c.selectedQOP, .authInt)
    }

    func testBearerChallenge() throws {
        let parsed = try SIPAuthChallenge(
            parsing: #"Bearer realm="atlanta.com", scope="abc", authz_server="https://as.example.com/token""#)
        XCTAssertEqual(
            parsed,
            .bearer(BearerChallenge(realm: "atlanta.com", scope: "abc", authorizationServer: "https://as.example.com/token")))
        XCTAssertEqual(parsed.realm, "atlanta.com")
        XCTAssertEqual(try SIPAuthChallenge(parsing: "Bearer"), .bearer(BearerChallenge()))
    }

    func testOriginNamesHeaders() {
        XCTAssertEqual(SIPAuthChallengeOrigin(statusCode: 401), .server)
        XCTAssertEqual(SIPAuthChallengeOrigin(statusCode: 407), .proxy)
        XCTAssertNil(SIPAuthChallengeOrigin(statusCode: 403))
        XCTAssertEqual(SIPAuthChallengeOrigin.server.challengeHeaderName, "WWW-Authenticate")
        XCTAssertEqual(SIPAuthChallengeOrigin.server.authorizationHeaderName, "Authorization")
        XCTAssertEqual(SIPAuthChallengeOrigin.proxy.challengeHeaderName, "Proxy-Authenticate")
        XCTAssertEqual(SIPAuthChallengeOrigin.proxy.authorizationHeaderName, "Proxy-Authorization")
    }

    // MARK: - Malformed input

    func testMalformedChallengesThrowTypedErrors() {
        let cases: [(String, SIPAuthError)] = [
            ("", .malformedChallenge),
            ("   ", .malformedChallenge),
            ("Basic realm=\"r\"", .unsupportedScheme),
            ("NTLM", .unsupportedScheme),
            ("Digest nonce=\"n\"", .missingParameter),
            ("Digest realm=\"r\"", .missingParameter),
            ("Digest realm=\"r\", nonce=\"\"", .missingParameter),
            ("Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256", .unsupportedAlgorithm),
            ("Digest realm=\"r\", nonce=\"n\", algorithm=\"\"", .unsupportedAlgorithm),
            ("Digest realm=\"r\", nonce=\"n\", qop=\"auth-conf\"", .unsupportedQOP),
            ("Digest realm=\"r\", realm=\"s\", nonce=\"n\"", .duplicateParameter),
            ("Digest realm=\"r", .malformedChallenge),
            ("Digest realm=\"r\\", .malformedChallenge),
            ("Digest realm", .malformedChallenge),
            ("Digest realm=", .malformedChallenge),
            ("Digest =\"r\"", .malformedChallenge),
            ("Digest realm=\"r\" nonce=\"n\"", .malformedChallenge),
            ("Digest realm=\"r\"; nonce=\"n\"", .malformedChallenge),
            ("Digest realm=\"a\r\nVia: x\", nonce=\"n\"", .malformedChallenge),
            ("Digest realm=\"a\u{0}b\", nonce=\"n\"", .malformedChallenge),
            ("Digest realm=r@x, nonce=\"n\"", .malformedChallenge),
            ("Dig\u{e9}st realm=\"r\"", .malformedChallenge),
            ("Digest,realm=\"r\", nonce=\"n\"", .malformedChallenge),
        ]
        for (input, expected) in cases {
            XCTAssertThrowsError(try SIPAuthChallenge(parsing: input), "input: \(input.debugDescription)") { error in
                XCTAssertEqual(error as? SIPAuthError, expected, "input: \(input.debugDescription) gave \(error)")
            }
        }
    }

    func testDigestInitRejectsBearer() {
        XCTAssertThrowsError(try DigestChallenge(parsing: "Bearer realm=\"r\"")) { error in
            XCTAssertEqual(error as? SIPAuthError, .unsupportedScheme)
        }
    }

    func testSizeLimits() {
        let long = String(repeating: "a", count: SIPAuthLimits.maxHeaderValueLength)
        XCTAssertThrowsError(try SIPAuthChallenge(parsing: "Digest realm=\"\(long)\", nonce=\"n\"")) { error in
            XCTAssertEqual(error as? SIPAuthError, .limitExceeded)
        }
        let longValue = String(repeating: "b", count: SIPAuthLimits.maxParameterLength + 1)
        XCTAssertThrowsError(try SIPAuthChallenge(parsing: "Digest realm=\"\(longValue)\", nonce=\"n\"")) { error in
            XCTAssertEqual(error as? SIPAuthError, .limitExceeded)
        }
        XCTAssertThrowsError(try SIPAuthChallenge(parsing: "Digest realm=r, nonce=\(longValue)")) { error in
            XCTAssertEqual(error as? SIPAuthError, .limitExceeded)
        }
        let many = (0...SIPAuthLimits.maxParameterCount).map { "p\($0)=v" }.joined(separator: ",")
        XCTAssertThrowsError(try SIPAuthChallenge(parsing: "Digest realm=r, nonce=n, \(many)")) { error in
            XCTAssertEqual(error as? SIPAuthError, .limitExceeded)
        }
        let justUnder = String(repeating: "c", count: SIPAuthLimits.maxParameterLength)
        XCTAssertNoThrow(try SIPAuthChallenge(parsing: "Digest realm=\"\(justUnder)\", nonce=\"n\""))
    }

    /// Every prefix of a valid challenge either parses or throws a typed error; none traps.
    func testTruncationsNeverTrap() {
        let full = Self.rfc7616SHA256Challenge
        for length in 0...full.utf8.count {
            let prefix = String(decoding: full.utf8.prefix(length), as: UTF8.self)
            do {
                _ = try SIPAuthChallenge(parsing: prefix)
            } catch {
                XCTAssertFalse(error.description.isEmpty)
            }
        }
    }

    func testErrorsCompareByKindAndDescribeDetail() {
        XCTAssertEqual(SIPAuthError.missingParameter.with("nonce"), .missingParameter)
        XCTAssertNotEqual(SIPAuthError.missingParameter, .malformedChallenge)
        XCTAssertEqual(
            SIPAuthError.missingParameter.with("nonce").description, "challenge lacks a required parameter: nonce")
        XCTAssertEqual(SIPAuthError.authenticationFailed.description, "authentication failed: credentials rejected")
    }
}
