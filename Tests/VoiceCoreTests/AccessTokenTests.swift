import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class AccessTokenTests: XCTestCase {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func segment(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let header = #"{"alg":"HS256","typ":"JWT","cty":"twilio-fpa;v=1"}"#
    static let payload = """
        {"jti":"SK123-1700000000","iss":"SK123","sub":"AC456","iat":1699999000,"nbf":1699999000,"exp":1700003000,
         "grants":{"identity":"alice","voice":{"incoming":{"allow":true},
           "outgoing":{"application_sid":"AP789","params":{"mode":"test"}},"push_credential_sid":"CR1"}}}
        """

    static func token(header: String = header, payload: String = payload, signature: String = "c2lnbmF0dXJl") -> String {
        "\(segment(header)).\(segment(payload)).\(signature)"
    }

    func testParsesAValidToken() throws {
        let text = Self.token()
        let token = try AccessToken(parsing: text, now: Self.now)
        XCTAssertEqual(token.identity, "alice")
        XCTAssertEqual(token.issuer, "SK123")
        XCTAssertEqual(token.subject, "AC456")
        XCTAssertEqual(token.tokenID, "SK123-1700000000")
        XCTAssertEqual(token.algorithm, "HS256")
        XCTAssertEqual(token.expiresAt, Date(timeIntervalSince1970: 1_700_003_000))
        XCTAssertEqual(token.notBefore, Date(timeIntervalSince1970: 1_699_999_000))
        XCTAssertEqual(token.issuedAt, Date(timeIntervalSince1970: 1_699_999_000))
        XCTAssertEqual(
            token.voiceGrant,
            AccessTokenVoiceGrant(
                incomingAllowed: true, outgoingApplicationSid: "AP789", outgoingApplicationParams: ["mode": "test"],
                pushCredentialSid: "CR1"))
        XCTAssertEqual(token.rawValue, text)
        XCTAssertEqual(token.bearerAuthorization, "Bearer \(text)")
        XCTAssertFalse(token.description.contains(text), "the description must not leak the credential")
    }

    func testMinimalTokenWithoutOptionalMembers() throws {
        let token = try AccessToken(
            parsing: Self.token(
                header: #"{"alg":"RS256"}"#, payload: #"{"iss":"x","exp":1700000001,"grants":{"identity":"b","voice":{}}}"#),
            now: Self.now)
        XCTAssertEqual(token.identity, "b")
        XCTAssertNil(token.notBefore)
        XCTAssertEqual(token.voiceGrant, AccessTokenVoiceGrant())
    }

    func testValidityWindowAroundTheEdges() throws {
        let token = try AccessToken(parsing: Self.token())
        XCTAssertNoThrow(try token.validate(at: Date(timeIntervalSince1970: 1_699_999_000)))  // nbf == now
        XCTAssertNoThrow(try token.validate(at: Date(timeIntervalSince1970: 1_700_002_999)))
        XCTAssertEqual(code { try token.validate(at: Date(timeIntervalSince1970: 1_700_003_000)) }, .accessTokenExpired)
        XCTAssertEqual(code { try token.validate(at: Date(timeIntervalSince1970: 1_800_000_000)) }, .accessTokenExpired)
        XCTAssertEqual(
            code { try token.validate(at: Date(timeIntervalSince1970: 1_699_998_999)) }, .accessTokenNotYetValid)
        XCTAssertEqual(
            code { _ = try AccessToken(parsing: Self.token(), now: Date(timeIntervalSince1970: 1_700_003_001)) },
            .accessTokenExpired)
    }

    func testMalformedTokens() {
        let validPayload = Self.segment(Self.payload)
        let validHeader = Self.segment(Self.header)
        let rows: [(String, String, VoiceError.Code)] = [
            ("empty", "", .accessTokenInvalid),
            ("one segment", "abc", .accessTokenInvalid),
            ("two segments", "\(validHeader).\(validPayload)", .accessTokenInvalid),
            ("four segments", "\(validHeader).\(validPayload).c2ln.c2ln", .accessTokenInvalid),
            ("empty header", ".\(validPayload).c2ln", .accessTokenInvalid),
            ("empty payload", "\(validHeader)..c2ln", .accessTokenInvalid),
            ("oversized", String(repeating: "a", count: 8193), .accessTokenInvalid),
            ("header not base64url", "e*J.\(validPayload).c2ln", .accessTokenHeaderInvalid),
            ("header not JSON", "\(Self.segment("hello")).\(validPayload).c2ln", .accessTokenHeaderInvalid),
            ("header JSON array", "\(Self.segment("[1]")).\(validPayload).c2ln", .accessTokenHeaderInvalid),
            ("payload not base64url", "\(validHeader).ab+c.c2ln", .accessTokenInvalid),
            ("payload padded", "\(validHeader).\(validPayload)==.c2ln", .accessTokenInvalid),
            ("payload dangling char", "\(validHeader).a.c2ln", .accessTokenInvalid),
            ("payload not JSON", "\(validHeader).\(Self.segment("{nope")).c2ln", .accessTokenInvalid),
            ("empty signature", "\(validHeader).\(validPayload).", .accessTokenSignatureInvalid),
            ("signature not base64url", "\(validHeader).\(validPayload).c2l/", .accessTokenSignatureInvalid),
        ]
        for (label, text, expected) in rows {
            XCTAssertEqual(code { _ = try AccessToken(parsing: text) }, expected, label)
        }
    }

    func testHeaderAndClaimRules() {
        let grants = #""grants":{"identity":"a","voice":{}}"#
        let rows: [(String, String, String, VoiceError.Code)] = [
            ("no alg", #"{"typ":"JWT"}"#, #"{"iss":"x","exp":1700000100,\#(grants)}"#, .accessTokenHeaderInvalid),
            ("empty alg", #"{"alg":""}"#, #"{"iss":"x","exp":1700000100,\#(grants)}"#, .accessTokenHeaderInvalid),
            ("alg none", #"{"alg":"none"}"#, #"{"iss":"x","exp":1700000100,\#(grants)}"#, .accessTokenHeaderInvalid),
            ("typ JWS", #"{"alg":"HS256","typ":"JWS"}"#, #"{"iss":"x","exp":1700000100,\#(grants)}"#, .accessTokenHeaderInvalid),
            ("cty other", #"{"alg":"HS256","cty":"jwt"}"#, #"{"iss":"x","exp":1700000100,\#(grants)}"#, .accessTokenHeaderInvalid),
            ("alg number", #"{"alg":256}"#, #"{"iss":"x","exp":1700000100,\#(grants)}"#, .accessTokenHeaderInvalid),
            ("no iss", Self.header, #"{"exp":1700000100,\#(grants)}"#, .accessTokenIssuerInvalid),
            ("blank iss", Self.header, #"{"iss":"  ","exp":1700000100,\#(grants)}"#, .accessTokenIssuerInvalid),
            ("no exp", Self.header, #"{"iss":"x",\#(grants)}"#, .accessTokenInvalid),
            ("exp string", Self.header, #"{"iss":"x","exp":"soon",\#(grants)}"#, .accessTokenInvalid),
            ("no grants", Self.header, #"{"iss":"x","exp":1700000100}"#, .accessTokenGrantsInvalid),
            ("no identity", Self.header, #"{"iss":"x","exp":1700000100,"grants":{"voice":{}}}"#, .accessTokenGrantsInvalid),
            ("blank identity", Self.header, #"{"iss":"x","exp":1700000100,"grants":{"identity":"","voice":{}}}"#,
             .accessTokenGrantsInvalid),
            ("no voice", Self.header, #"{"iss":"x","exp":1700000100,"grants":{"identity":"a"}}"#, .accessTokenGrantsInvalid),
            ("25 h lifetime", Self.header, #"{"iss":"x","iat":1700000000,"exp":1700090001,\#(grants)}"#,
             .expirationTimeExceedsMaxTimeAllowed),
            ("25 h from nbf", Self.header, #"{"iss":"x","nbf":1700000000,"exp":1700090001,\#(grants)}"#,
             .expirationTimeExceedsMaxTimeAllowed),
        ]
        for (label, header, payload, expected) in rows {
            XCTAssertEqual(code { _ = try AccessToken(parsing: Self.token(header: header, payload: payload)) }, expected, label)
        }
        // Exactly 24 hours is allowed.
        XCTAssertNoThrow(
            try AccessToken(
                parsing: Self.token(payload: #"{"iss":"x","iat":1700000000,"exp":1700086400,\#(grants)}"#)))
    }

    func testErrorsCarryAReason() {
        do throws(VoiceError) {
            _ = try AccessToken(parsing: "abc")
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.code, .accessTokenInvalid)
            XCTAssertFalse(error.failureReason?.isEmpty ?? true)
        }
    }

    private func code(_ body: () throws -> Void) -> VoiceError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? VoiceError)?.code
        }
    }

    func testRandomInputNeverCrashesAndFailsTyped() {
        for text in Self.randomInputs(count: 3000, alphabet: "eyJ.Zm9v_-=+/ {}\"a:1é", seed: 1) {
            XCTAssertThrowsError(try AccessToken(parsing: text)) { XCTAssertTrue($0 is VoiceError) }
        }
    }

    /// Deterministic pseudo-random strings over an alphabet that favours the parser's delimiters.
    private static func randomInputs(count: Int, alphabet: String, seed: UInt64) -> [String] {
        var state = seed
        let characters = Array(alphabet)
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 58)
            return String((0..<length).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return characters[Int(state >> 33) % characters.count]
            })
        }
    }
}
