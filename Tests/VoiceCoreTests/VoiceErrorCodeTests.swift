import VoiceSIP
import XCTest

@testable import VoiceCore

final class VoiceErrorCodeTests: XCTestCase {
    /// The TVOError list, name and number.
    static let expected: [(String, Int)] = [
        ("accessTokenInvalid", 20101), ("accessTokenHeaderInvalid", 20102), ("accessTokenIssuerInvalid", 20103),
        ("accessTokenExpired", 20104), ("accessTokenNotYetValid", 20105), ("accessTokenGrantsInvalid", 20106),
        ("accessTokenSignatureInvalid", 20107), ("authFailure", 20151), ("expirationTimeExceedsMaxTimeAllowed", 20157),
        ("accessForbidden", 20403), ("applicationNotFound", 21218), ("connectionError", 31005),
        ("callCancelled", 31008), ("transportError", 31009), ("malformedRequest", 31100),
        ("authorizationError", 31201), ("registrationError", 31301), ("unsupportedCancelMessage", 31302),
        ("badRequest", 31400), ("forbidden", 31403), ("notFound", 31404), ("requestTimeout", 31408),
        ("conflict", 31409), ("upgradeRequired", 31426), ("tooManyRequests", 31429),
        ("temporarilyUnavailable", 31480), ("callDoesNotExist", 31481), ("addressIncomplete", 31484),
        ("busyHere", 31486), ("requestTerminated", 31487), ("internalServerError", 31500), ("badGateway", 31502),
        ("serviceUnavailable", 31503), ("gatewayTimeout", 31504), ("dnsResolution", 31530),
        ("busyEverywhere", 31600), ("decline", 31603), ("doesNotExistAnywhere", 31604),
        ("tokenAuthenticationRejected", 51007), ("signalingConnectionDisconnected", 53001),
        ("mediaClientLocalDescFailed", 53400), ("mediaServerLocalDescFailed", 53401),
        ("mediaClientRemoteDescFailed", 53402), ("mediaServerRemoteDescFailed", 53403),
        ("mediaNoSupportedCodec", 53404), ("mediaConnectionError", 53405), ("mediaDtlsTransportFailed", 53407),
    ]

    func testCasesAreExactlyTheTVOErrorList() {
        let actual = VoiceError.Code.allCases.map { ("\($0)", $0.rawValue) }
        XCTAssertEqual(actual.map(\.0), Self.expected.map(\.0))
        XCTAssertEqual(actual.map(\.1), Self.expected.map(\.1))
    }

    func testEveryCodeHasADistinctDescription() {
        for code in VoiceError.Code.allCases {
            XCTAssertFalse(code.description.isEmpty, "\(code)")
            XCTAssertEqual(VoiceError(code).localizedDescription, code.description)
        }
        XCTAssertEqual(Set(VoiceError.Code.allCases.map(\.description)).count, VoiceError.Code.allCases.count)
    }

    func testSeedDescriptions() {
        XCTAssertEqual(VoiceError.Code.authFailure.description, "Failed to authenticate the client")
        XCTAssertEqual(VoiceError.Code.busyEverywhere.description, "Busy Everywhere")
        XCTAssertEqual(VoiceError.Code.dnsResolution.description, "DNS Resolution Error")
        XCTAssertEqual(VoiceError.Code.mediaConnectionError.description, "Media connection failed")
        XCTAssertEqual(
            VoiceError.Code.mediaDtlsTransportFailed.description, "Media connection failed due to DTLS handshake failure")
        XCTAssertEqual(VoiceError.Code.signalingConnectionDisconnected.description, "Signaling connection disconnected")
    }

    /// VoiceSIP's failure codes are the source of the SIP numbering: each one has a case with
    /// the same number and name, except the two documented differences.
    func testAgreesWithSIPFailureCodes() {
        for sipCode in SIPFailureCode.all {
            let code = VoiceError.code(for: sipCode)
            if sipCode == .generalError {
                XCTAssertEqual(code, .badRequest)
                XCTAssertNil(VoiceError.Code(rawValue: sipCode.code))
                continue
            }
            XCTAssertEqual(code.rawValue, sipCode.code, sipCode.name)
            let name = sipCode == .dnsResolutionError ? "dnsResolution" : sipCode.name
            XCTAssertEqual("\(code)", name)
        }
    }

    func testDescriptionAndLocalizedError() {
        let error = VoiceError(.busyEverywhere, failureReason: "SIP/2.0 600 Call Rejected", sipStatus: 600)
        XCTAssertEqual(error.description, "31600 Busy Everywhere: SIP/2.0 600 Call Rejected")
        XCTAssertEqual(error.errorDescription, "Busy Everywhere")
        XCTAssertEqual(VoiceError(.connectionError).description, "31005 Connection error")
        let asLocalized: any LocalizedError = error
        XCTAssertEqual(asLocalized.failureReason, "SIP/2.0 600 Call Rejected")
    }
}
