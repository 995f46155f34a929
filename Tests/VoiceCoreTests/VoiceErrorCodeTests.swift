import VoiceSIP
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class VoiceErrorCodeTests: XCTestCase {
    /// The TVOError list: case, name and number.
    static let expected: [(VoiceError.Code, String, Int)] = [
        (.accessTokenInvalid, "accessTokenInvalid", 20101),
        (.accessTokenHeaderInvalid, "accessTokenHeaderInvalid", 20102),
        (.accessTokenIssuerInvalid, "accessTokenIssuerInvalid", 20103),
        (.accessTokenExpired, "accessTokenExpired", 20104),
        (.accessTokenNotYetValid, "accessTokenNotYetValid", 20105),
        (.accessTokenGrantsInvalid, "accessTokenGrantsInvalid", 20106),
        (.accessTokenSignatureInvalid, "accessTokenSignatureInvalid", 20107),
        (.authFailure, "authFailure", 20151),
        (.expirationTimeExceedsMaxTimeAllowed, "expirationTimeExceedsMaxTimeAllowed", 20157),
        (.accessForbidden, "accessForbidden", 20403),
        (.applicationNotFound, "applicationNotFound", 21218),
        (.connectionError, "connectionError", 31005),
        (.callCancelled, "callCancelled", 31008),
        (.transportError, "transportError", 31009),
        (.malformedRequest, "malformedRequest", 31100),
        (.authorizationError, "authorizationError", 31201),
        (.registrationError, "registrationError", 31301),
        (.unsupportedCancelMessage, "unsupportedCancelMessage", 31302),
        (.badRequest, "badRequest", 31400),
        (.forbidden, "forbidden", 31403),
        (.notFound, "notFound", 31404),
        (.requestTimeout, "requestTimeout", 31408),
        (.conflict, "conflict", 31409),
        (.upgradeRequired, "upgradeRequired", 31426),
        (.tooManyRequests, "tooManyRequests", 31429),
        (.temporarilyUnavailable, "temporarilyUnavailable", 31480),
        (.callDoesNotExist, "callDoesNotExist", 31481),
        (.addressIncomplete, "addressIncomplete", 31484),
        (.busyHere, "busyHere", 31486),
        (.requestTerminated, "requestTerminated", 31487),
        (.internalServerError, "internalServerError", 31500),
        (.badGateway, "badGateway", 31502),
        (.serviceUnavailable, "serviceUnavailable", 31503),
        (.gatewayTimeout, "gatewayTimeout", 31504),
        (.dnsResolution, "dnsResolution", 31530),
        (.busyEverywhere, "busyEverywhere", 31600),
        (.decline, "decline", 31603),
        (.doesNotExistAnywhere, "doesNotExistAnywhere", 31604),
        (.tokenAuthenticationRejected, "tokenAuthenticationRejected", 51007),
        (.signalingConnectionDisconnected, "signalingConnectionDisconnected", 53001),
        (.mediaClientLocalDescFailed, "mediaClientLocalDescFailed", 53400),
        (.mediaServerLocalDescFailed, "mediaServerLocalDescFailed", 53401),
        (.mediaClientRemoteDescFailed, "mediaClientRemoteDescFailed", 53402),
        (.mediaServerRemoteDescFailed, "mediaServerRemoteDescFailed", 53403),
        (.mediaNoSupportedCodec, "mediaNoSupportedCodec", 53404),
        (.mediaConnectionError, "mediaConnectionError", 53405),
        (.mediaDtlsTransportFailed, "mediaDtlsTransportFailed", 53407),
    ]

    func testCasesAreExactlyTheTVOErrorList() {
        XCTAssertEqual(VoiceError.Code.allCases, Self.expected.map(\.0))
        for (code, name, number) in Self.expected {
            XCTAssertEqual(code.rawValue, number, name)
            XCTAssertEqual(code.name, name)
            XCTAssertEqual(VoiceError.Code(rawValue: number), code)
        }
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
            XCTAssertEqual(code.name, name)
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
