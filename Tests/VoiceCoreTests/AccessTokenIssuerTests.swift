import Crypto
import Foundation
import XCTest

import VoiceCore
import VoiceService

/// The server-side issuer (VoiceService) makes tokens the client's checks accept, signed with
/// the API key's secret.
final class AccessTokenIssuerTests: XCTestCase {
    private let issuer = AccessTokenIssuer(accountSid: "AC" + String(repeating: "1", count: 32), apiKeySid: "SKkey", apiKeySecret: "s3cret")
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    func testAnIssuedTokenPassesTheClientsChecks() throws {
        let text = issuer.makeToken(identity: "alice", lifetime: 600, now: now, outgoingApplicationSid: "AP1")
        let token = try AccessToken(parsing: text, now: now.addingTimeInterval(1))
        XCTAssertEqual(token.identity, "alice")
        XCTAssertEqual(token.issuer, "SKkey")
        XCTAssertEqual(token.subject, issuer.accountSid)
        XCTAssertEqual(token.algorithm, "HS256")
        XCTAssertEqual(token.issuedAt, now)
        XCTAssertEqual(token.expiresAt, now.addingTimeInterval(600))
        XCTAssertEqual(token.voiceGrant.outgoingApplicationSid, "AP1")
        XCTAssertEqual(token.voiceGrant.incomingAllowed, true)
    }

    func testTheSignatureIsHMACSHA256OfTheFirstTwoSegmentsWithTheSecret() throws {
        let text = issuer.makeToken(identity: "alice", now: now)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(parts.count, 3)
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data((parts[0] + "." + parts[1]).utf8), using: SymmetricKey(data: Data("s3cret".utf8)))
        let expected = Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        XCTAssertEqual(parts[2], expected)
        let other = AccessTokenIssuer(accountSid: issuer.accountSid, apiKeySid: "SKkey", apiKeySecret: "other")
        XCTAssertNotEqual(other.makeToken(identity: "alice", now: now), text, "another secret signs differently")
    }

    func testTheLifetimeIsClampedToOneDay() throws {
        let token = try AccessToken(parsing: issuer.makeToken(identity: "alice", lifetime: 7 * 86_400, now: now), now: now)
        XCTAssertEqual(token.expiresAt, now.addingTimeInterval(86_400))
        let expired = issuer.makeToken(identity: "alice", lifetime: 60, now: now.addingTimeInterval(-3_600))
        XCTAssertThrowsError(try AccessToken(parsing: expired, now: now)) { error in
            XCTAssertEqual((error as? VoiceError)?.code, .accessTokenExpired)
        }
    }
}
