import VoiceSIP
import VoiceSIPAgent
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class VoiceErrorMappingTests: XCTestCase {
    func testSIPStatusRows() {
        let rows: [(Int, VoiceError.Code)] = [
            (300, .badRequest), (302, .badRequest), (400, .badRequest), (401, .authorizationError),
            (402, .badRequest), (403, .forbidden), (404, .notFound), (405, .badRequest), (407, .authorizationError),
            (408, .requestTimeout), (409, .conflict), (415, .badRequest), (426, .upgradeRequired),
            (429, .tooManyRequests), (480, .temporarilyUnavailable), (481, .callDoesNotExist),
            (484, .addressIncomplete), (486, .busyHere), (487, .requestTerminated), (488, .mediaNoSupportedCodec),
            (491, .badRequest), (500, .internalServerError), (501, .internalServerError), (502, .badGateway),
            (503, .serviceUnavailable), (504, .gatewayTimeout), (580, .internalServerError),
            (600, .busyEverywhere), (603, .decline), (604, .doesNotExistAnywhere), (606, .busyEverywhere),
        ]
        for (status, code) in rows {
            let error = VoiceError(sipStatus: status)
            XCTAssertEqual(error?.code, code, "\(status)")
            XCTAssertEqual(error?.sipStatus, status)
        }
        for status in [0, 100, 180, 200, 299, 700, -1] {
            XCTAssertNil(VoiceError(sipStatus: status), "\(status)")
        }
    }

    func testSIPStatusFailureReason() {
        XCTAssertEqual(VoiceError(sipStatus: 486)?.failureReason, "SIP/2.0 486 Busy Here")
        XCTAssertEqual(VoiceError(sipStatus: 486, reasonPhrase: "Not Now")?.failureReason, "SIP/2.0 486 Not Now")
    }

    func testSIPFailureRows() {
        let rows: [(SIPFailure, VoiceError.Code, Int?)] = [
            (.finalResponse(statusCode: 404), .notFound, 404),
            (.finalResponse(statusCode: 600), .busyEverywhere, 600),
            (.finalResponse(statusCode: 302), .badRequest, 302),
            (.authenticationFailed, .authFailure, nil),
            (.challengeUnanswerable, .authorizationError, nil),
            (.transportError, .transportError, nil),
            (.connectionError, .connectionError, nil),
            (.dnsResolutionFailure, .dnsResolution, nil),
            (.transactionTimeout, .requestTimeout, nil),
        ]
        for (failure, code, status) in rows {
            let error = VoiceError(sipFailure: failure)
            XCTAssertEqual(error.code, code, "\(failure)")
            XCTAssertEqual(error.sipStatus, status, "\(failure)")
            XCTAssertNotNil(error.failureReason)
        }
        XCTAssertEqual(VoiceError(sipFailure: .finalResponse(statusCode: 150)).code, .badRequest)
    }

    func testTransportErrorRows() {
        let rows: [(SIPTransportError.Kind, VoiceError.Code)] = [
            (.dnsResolution, .dnsResolution), (.connectFailed, .connectionError), (.tlsFailed, .connectionError),
            (.connectionClosed, .connectionError), (.tooManyConnections, .connectionError),
            (.sendFailed, .transportError), (.invalidAddress, .transportError), (.bindFailed, .transportError),
            (.messageTooLarge, .transportError), (.unsupportedTransport, .transportError), (.shutDown, .transportError),
        ]
        for (kind, code) in rows {
            let error = VoiceError(transportError: SIPTransportError(kind, "detail"))
            XCTAssertEqual(error.code, code, "\(kind)")
            XCTAssertEqual(error.failureReason, "\(kind): detail")
        }
    }

    func testRegistrationFailureRows() {
        let rows: [(SIPFailure, VoiceError.Code)] = [
            (.authenticationFailed, .authFailure), (.challengeUnanswerable, .authorizationError),
            (.transactionTimeout, .requestTimeout), (.dnsResolutionFailure, .dnsResolution),
            (.connectionError, .connectionError), (.transportError, .transportError),
            (.finalResponse(statusCode: 403), .forbidden), (.finalResponse(statusCode: 404), .notFound),
            (.finalResponse(statusCode: 503), .serviceUnavailable), (.finalResponse(statusCode: 400), .badRequest),
            (.finalResponse(statusCode: 405), .registrationError), (.finalResponse(statusCode: 423), .registrationError),
            (.finalResponse(statusCode: 488), .registrationError), (.finalResponse(statusCode: 501), .registrationError),
            (.finalResponse(statusCode: 302), .registrationError), (.finalResponse(statusCode: 606), .registrationError),
        ]
        for (failure, code) in rows {
            XCTAssertEqual(VoiceError(registrationFailure: failure).code, code, "\(failure)")
        }
        XCTAssertEqual(VoiceError(registrationFailure: .finalResponse(statusCode: 423)).sipStatus, 423)
    }

    func testSessionEndReasonRows() {
        let rows: [(SIPSessionEndReason, VoiceError.Code?, Int?)] = [
            (.localHangUp, nil, nil), (.remoteHangUp, nil, nil), (.cancelledByLocal, nil, nil),
            (.cancelledByRemote, .callCancelled, 487),
            (.rejected(statusCode: 600), .busyEverywhere, 600), (.declined(statusCode: 600), .busyEverywhere, 600),
            (.rejected(statusCode: 486), .busyHere, 486), (.rejected(statusCode: 487), .requestTerminated, 487),
            (.rejected(statusCode: 603), .decline, 603), (.rejected(statusCode: 488), .mediaNoSupportedCodec, 488),
            (.rejected(statusCode: 401), .authFailure, 401), (.rejected(statusCode: 407), .authFailure, 407),
            (.declined(statusCode: 488), .mediaNoSupportedCodec, 488), (.declined(statusCode: 486), .busyHere, 486),
            (.rejected(statusCode: 199), .badRequest, 199),
            (.failed(.transactionTimeout), .requestTimeout, nil), (.failed(.authenticationFailed), .authFailure, nil),
            (.failed(.connectionError), .connectionError, nil),
            (.ackTimeout, .requestTimeout, nil), (.provisionalNotAcknowledged, .requestTimeout, nil), (.sessionExpired, .connectionError, nil),
            (.mediaNegotiationFailed(.noCommonCodec), .mediaNoSupportedCodec, nil),
        ]
        for (reason, code, status) in rows {
            let error = VoiceError(sessionEndReason: reason)
            XCTAssertEqual(error?.code, code, "\(reason)")
            XCTAssertEqual(error?.sipStatus, status, "\(reason)")
        }
    }

    func testRejectedInviteReadsAsTwilioDoes() throws {
        let error = try XCTUnwrap(VoiceError(sessionEndReason: .rejected(statusCode: 600)))
        XCTAssertEqual(error.localizedDescription, "Busy Everywhere")
        XCTAssertEqual(error.failureReason, "SIP/2.0 600 Call Rejected")
        XCTAssertEqual(error.description, "31600 Busy Everywhere: SIP/2.0 600 Call Rejected")
    }

    func testNegotiationErrorRows() {
        let rows: [(SDPNegotiationError, VoiceError.Code)] = [
            (.noCommonCodec, .mediaNoSupportedCodec), (.streamRejected, .mediaServerRemoteDescFailed),
            (.offerPending, .mediaClientLocalDescFailed), (.noAudioStream, .mediaClientRemoteDescFailed),
            (.noCommonCryptoSuite, .mediaClientRemoteDescFailed), (.encryptionRequired, .mediaClientRemoteDescFailed),
            (.encryptionNotEnabled, .mediaClientRemoteDescFailed), (.answerMismatch("x"), .mediaClientRemoteDescFailed),
            (.noOfferPending, .mediaClientRemoteDescFailed), (.dtlsNotConfigured("x"), .mediaClientLocalDescFailed),
            (.dtlsRequired, .mediaClientRemoteDescFailed), (.dtlsNotEnabled, .mediaClientRemoteDescFailed),
            (.rtcpMuxRequired, .mediaClientRemoteDescFailed), (.noUsableFingerprint, .mediaClientRemoteDescFailed),
            (.dtlsSetupRefused("x"), .mediaClientRemoteDescFailed),
        ]
        for (negotiation, code) in rows {
            let error = VoiceError(negotiationError: negotiation)
            XCTAssertEqual(error.code, code, "\(negotiation)")
            XCTAssertEqual(error.failureReason, negotiation.description)
        }
    }

    func testMediaAndSignalingFactories() {
        XCTAssertEqual(VoiceError.mediaConnectionFailed("no RTP for 10 s").code, .mediaConnectionError)
        XCTAssertEqual(VoiceError.mediaConnectionFailed("no RTP for 10 s").failureReason, "no RTP for 10 s")
        XCTAssertEqual(VoiceError.signalingConnectionLost("reset").code, .signalingConnectionDisconnected)
    }
}
