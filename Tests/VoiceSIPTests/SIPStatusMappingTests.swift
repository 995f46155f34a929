import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPStatusMappingTests: XCTestCase {
    /// The named status codes and the code each must map to.
    static let table: [(status: Int, code: Int, name: String)] = [
        (400, 31400, "badRequest"),
        (401, 31201, "authorizationError"),
        (403, 31403, "forbidden"),
        (404, 31404, "notFound"),
        (407, 31201, "authorizationError"),
        (408, 31408, "requestTimeout"),
        (409, 31409, "conflict"),
        (426, 31426, "upgradeRequired"),
        (429, 31429, "tooManyRequests"),
        (480, 31480, "temporarilyUnavailable"),
        (481, 31481, "callDoesNotExist"),
        (484, 31484, "addressIncomplete"),
        (486, 31486, "busyHere"),
        (487, 31487, "requestTerminated"),
        (488, 53404, "mediaNoSupportedCodec"),
        (500, 31500, "internalServerError"),
        (502, 31502, "badGateway"),
        (503, 31503, "serviceUnavailable"),
        (504, 31504, "gatewayTimeout"),
        (600, 31600, "busyEverywhere"),
        (603, 31603, "decline"),
        (604, 31604, "doesNotExistAnywhere"),
    ]

    func testNamedStatusCodes() {
        for row in Self.table {
            let mapped = SIPErrorMapping.failureCode(statusCode: row.status)
            XCTAssertEqual(mapped?.code, row.code, "status \(row.status)")
            XCTAssertEqual(mapped?.name, row.name, "status \(row.status)")
            XCTAssertEqual(SIPErrorMapping.failureCode(for: .finalResponse(statusCode: row.status)).code, row.code)
        }
    }

    func testOtherStatusCodesFallBackPerClass() {
        for status in [402, 405, 406, 410, 413, 415, 416, 420, 421, 422, 423, 482, 483, 485, 491, 493, 499] {
            XCTAssertEqual(SIPErrorMapping.failureCode(statusCode: status), .badRequest, "status \(status)")
        }
        for status in [501, 505, 513, 580, 599] {
            XCTAssertEqual(SIPErrorMapping.failureCode(statusCode: status), .internalServerError, "status \(status)")
        }
        for status in [606, 607, 608, 699] {
            XCTAssertEqual(SIPErrorMapping.failureCode(statusCode: status), .busyEverywhere, "status \(status)")
        }
        for status in [300, 301, 302, 305, 380, 399] {
            XCTAssertEqual(SIPErrorMapping.failureCode(statusCode: status), .generalError, "status \(status)")
        }
    }

    func testNonFailuresMapToNothing() {
        for status in [-1, 0, 99, 100, 180, 183, 200, 202, 299, 700, 1000] {
            XCTAssertNil(SIPErrorMapping.failureCode(statusCode: status), "status \(status)")
        }
        XCTAssertEqual(SIPErrorMapping.failureCode(for: .finalResponse(statusCode: 200)), .generalError)
    }

    func testEveryStatusFrom300To699MapsToADefinedCode() {
        for status in 300...699 {
            guard let mapped = SIPErrorMapping.failureCode(statusCode: status) else {
                return XCTFail("status \(status) unmapped")
            }
            XCTAssertEqual(SIPFailureCode(code: mapped.code), mapped)
        }
    }

    func testNonResponseFailures() {
        let expected: [(SIPFailure, Int, String)] = [
            (.authenticationFailed, 20151, "authFailure"),
            (.challengeUnanswerable, 31201, "authorizationError"),
            (.transportError, 31009, "transportError"),
            (.connectionError, 31005, "connectionError"),
            (.dnsResolutionFailure, 31530, "dnsResolutionError"),
            (.transactionTimeout, 31408, "requestTimeout"),
        ]
        for (failure, code, name) in expected {
            let mapped = SIPErrorMapping.failureCode(for: failure)
            XCTAssertEqual(mapped.code, code, "\(failure)")
            XCTAssertEqual(mapped.name, name, "\(failure)")
        }
    }

    func testAuthErrorsMapToAuthFailureOrAuthorizationError() {
        XCTAssertEqual(SIPFailure(SIPAuthError.authenticationFailed.with("realm")), .authenticationFailed)
        XCTAssertEqual(SIPErrorMapping.failureCode(for: SIPFailure(.authenticationFailed)).code, 20151)
        let unanswerable: [SIPAuthError] = [
            .noCredentials, .malformedChallenge, .unsupportedScheme, .unsupportedAlgorithm, .unsupportedQOP,
            .missingParameter, .duplicateParameter, .limitExceeded,
        ]
        for error in unanswerable {
            XCTAssertEqual(SIPFailure(error), .challengeUnanswerable, "\(error)")
            XCTAssertEqual(SIPErrorMapping.failureCode(for: SIPFailure(error)).code, 31201, "\(error)")
        }
    }

    func testCodesAreUniqueAndLookUpByNumber() {
        let codes = SIPFailureCode.all.map(\.code)
        XCTAssertEqual(Set(codes).count, codes.count)
        XCTAssertEqual(Set(SIPFailureCode.all.map(\.name)).count, codes.count)
        XCTAssertEqual(codes, codes.sorted())
        for code in SIPFailureCode.all {
            XCTAssertEqual(SIPFailureCode(code: code.code), code)
            XCTAssertFalse(code.message.isEmpty)
        }
        XCTAssertNil(SIPFailureCode(code: 12345))
        XCTAssertEqual(SIPFailureCode.busyHere.description, "31486 busyHere: Busy Here")
    }
}
