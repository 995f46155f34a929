import VoiceAddress
import VoiceSTUN
import VoiceNetwork
import XCTest

@testable import VoiceICE

/// Connectivity checks as bytes: what one agent sends, the other validates and answers.
final class ICEConnectivityCheckTests: XCTestCase {
    private let alice = ICECredentials(usernameFragment: "evtj", password: "VOkJxbRl1RmTxUk/WvJxBt")
    private let bob = ICECredentials(usernameFragment: "h6vY", password: "PsWCSkHQZxEX/VGFJCnIe45g")
    private let id: [UInt8] = Array(1...12)
    private let source = TransportAddress(ip: IPAddress("192.0.2.1")!, port: 32_853)

    /// RFC 5769 §2.1's request is an ICE check: "evtj:h6vY" is addressed to the agent whose
    /// fragment is evtj, with that agent's password.
    func testTheRFC5769RequestReadsAsACheck() throws {
        let bytes: [UInt8] = """
            00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae 80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
            00 24 00 04 6e 00 01 ff 80 29 00 08 93 2f f9 b1 51 26 3b 36 00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
            00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2 80 28 00 04 e5 7a 3b cf
            """.split(whereSeparator: \.isWhitespace).map { UInt8($0, radix: 16) ?? 0 }
        let check = try ICEConnectivityCheck.readRequest(bytes, local: alice, remoteFragment: "h6vY").get()
        XCTAssertEqual(check.priority, 0x6E00_01FF)
        XCTAssertEqual(check.role, ICERole(isControlling: false, tieBreaker: 0x932F_F9B1_5126_3B36))
        XCTAssertFalse(check.useCandidate)
        XCTAssertEqual(ICEConnectivityCheck.readRequest(bytes, local: alice, remoteFragment: "zzzz"), .failure(.wrongUsername))
        XCTAssertEqual(ICEConnectivityCheck.readRequest(bytes, local: bob, remoteFragment: nil), .failure(.badIntegrity))
    }

    func testACheckAndItsAnswerGoBothWays() throws {
        let role = ICERole(isControlling: true, tieBreaker: 0x0102_0304_0506_0708)
        let request = ICEConnectivityCheck.request(transactionID: id, local: alice, remote: bob, priority: 1_862_270_975, role: role, useCandidate: true)
        let check = try ICEConnectivityCheck.readRequest(request, local: bob, remoteFragment: "evtj").get()
        XCTAssertEqual(check, ICEReceivedCheck(transactionID: id, priority: 1_862_270_975, role: role, useCandidate: true))
        XCTAssertEqual(try ICEConnectivityCheck.readRequest(request, local: bob, remoteFragment: nil).get(), check, "before the answer")

        let answer = ICEConnectivityCheck.successResponse(to: check, from: source, local: bob)
        XCTAssertEqual(ICEConnectivityCheck.readResponse(answer, remote: bob), .success(.success(mapped: source)))
        XCTAssertEqual(ICEConnectivityCheck.readResponse(answer, remote: alice), .failure(.badIntegrity), "alice's password does not sign bob's answer")

        let ipv6 = TransportAddress(ip: IPAddress("2001:db8::1")!, port: 9)
        let answer6 = ICEConnectivityCheck.successResponse(to: check, from: ipv6, local: bob)
        XCTAssertEqual(ICEConnectivityCheck.readResponse(answer6, remote: bob), .success(.success(mapped: ipv6)))

        let conflict = ICEConnectivityCheck.errorResponse(487, reason: "Role Conflict", transactionID: id, local: bob)
        XCTAssertEqual(ICEConnectivityCheck.readResponse(conflict, remote: bob), .success(.roleConflict))
        let bad = ICEConnectivityCheck.errorResponse(400, reason: "Bad Request", transactionID: id, local: bob)
        XCTAssertEqual(ICEConnectivityCheck.readResponse(bad, remote: bob), .success(.error(400)))
    }

    func testForgedTamperedAndIncompleteChecksAreRefused() throws {
        let role = ICERole(isControlling: false, tieBreaker: 7)
        let request = ICEConnectivityCheck.request(transactionID: id, local: alice, remote: bob, priority: 5, role: role, useCandidate: false)
        // Signed with a guessed password: integrity fails, and so it is never answered.
        let forged = ICEConnectivityCheck.request(
            transactionID: id, local: alice, remote: ICECredentials(usernameFragment: "h6vY", password: "guessedguessedguessed1"), priority: 5, role: role,
            useCandidate: false)
        XCTAssertEqual(ICEConnectivityCheck.readRequest(forged, local: bob, remoteFragment: "evtj"), .failure(.badIntegrity))
        // Any flipped bit: the fingerprint or the integrity catches it.
        for index in stride(from: 0, to: request.count, by: 7) {
            var tampered = request
            tampered[index] ^= 0x10
            guard case .failure = ICEConnectivityCheck.readRequest(tampered, local: bob, remoteFragment: "evtj") else {
                return XCTFail("byte \(index) flipped was taken")
            }
        }
        // Without FINGERPRINT.
        let unfingerprinted = STUNMessage(type: .bindingRequest, transactionID: id, attributes: [])
            .serialized(integrity: STUNIntegrityKey(bytes: Array(bob.password.utf8)), fingerprint: false)
        XCTAssertEqual(ICEConnectivityCheck.readRequest(unfingerprinted, local: bob, remoteFragment: nil), .failure(.badFingerprint))
        // Signed and fingerprinted, but without PRIORITY or a role.
        let bare = STUNMessage(
            type: .bindingRequest, transactionID: id,
            attributes: [STUNMessage.Attribute(type: STUNMessage.Attribute.username, value: Array("h6vY:evtj".utf8))]
        ).serialized(integrity: STUNIntegrityKey(bytes: Array(bob.password.utf8)), fingerprint: true)
        XCTAssertEqual(ICEConnectivityCheck.readRequest(bare, local: bob, remoteFragment: "evtj"), .failure(.missingAttribute))
        // RTP, SIP, junk.
        for junk: [UInt8] in [[0x80, 0x00, 0x00, 0x01] + Array(repeating: 0, count: 20), Array("OPTIONS sip:x SIP/2.0\r\n".utf8), []] {
            XCTAssertEqual(ICEConnectivityCheck.readRequest(junk, local: bob, remoteFragment: nil), .failure(.notACheck))
            XCTAssertEqual(ICEConnectivityCheck.readResponse(junk, remote: bob), .failure(.notACheck))
        }
    }

    func testRandomCredentialsAreValidForSDP() {
        var generator = SystemRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &generator)
        XCTAssertGreaterThanOrEqual(credentials.usernameFragment.utf8.count, 4)
        XCTAssertGreaterThanOrEqual(credentials.password.utf8.count, 22)
        XCTAssertNotEqual(credentials, ICECredentials.random(using: &generator))
    }
}
