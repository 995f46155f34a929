/// Maps SIP failures to the SDK's error codes, following Twilio's Voice SDK numbering
/// (31000 + SIP status for the SIP errors it names).
///
/// Rules beyond one-to-one codes:
/// - **401 / 407.** A final 401/407 reaching the mapping means the challenge was not
///   answered successfully. When the authenticator answered and the realm rejected the
///   credentials again (``SIPFailure/authenticationFailed``), the code is 20151
///   `authFailure`: wrong password or token. When the challenge could not be answered at all
///   (``SIPFailure/challengeUnanswerable``, or a bare 401/407 final response whose cause is
///   unknown) the code is 31201 `authorizationError`.
/// - **488 Not Acceptable Here** is 53404 `mediaNoSupportedCodec`: in this stack the
///   peer sends it when none of the offered codecs (or SDP) is acceptable. Twilio names no
///   31488. **606 Not Acceptable** follows the generic 6xx rule (31600), since it may also
///   reject the Request-URI.
/// - **Other 4xx** (402, 405, 410, 413, 415, 420, 421, 422, 423, 482, 483, 485, 491, 493...)
///   are 31400 `badRequest`; **other 5xx** (501, 505, 513, 580) are 31500
///   `internalServerError`; **other 6xx** (606, 607, 608) are 31600 `busyEverywhere`.
/// - **3xx** reaching the mapping is a redirect the stack did not follow: 31000
///   `generalError`.
/// - Transport error 31009, connection error 31005, DNS failure 31530, transaction timeout
///   31408 (the same as a 408 response).
package enum SIPErrorMapping: Sendable {
    /// The code for `failure`. A `finalResponse` outside 300–699 (not a failure) maps to
    /// ``SIPFailureCode/generalError``; use ``failureCode(statusCode:)`` to tell those apart.
    package static func failureCode(for failure: SIPFailure) -> SIPFailureCode {
        switch failure {
        case .finalResponse(let status): return failureCode(statusCode: status) ?? .generalError
        case .authenticationFailed: return .authFailure
        case .challengeUnanswerable: return .authorizationError
        case .transportError: return .transportError
        case .connectionError: return .connectionError
        case .dnsResolutionFailure: return .dnsResolutionError
        case .transactionTimeout: return .requestTimeout
        }
    }

    /// The code for a final response status; nil for 1xx, 2xx and numbers outside 100–699.
    package static func failureCode(statusCode: Int) -> SIPFailureCode? {
        switch statusCode {
        case 300...399: return .generalError
        case 400: return .badRequest
        case 401, 407: return .authorizationError
        case 403: return .forbidden
        case 404: return .notFound
        case 408: return .requestTimeout
        case 409: return .conflict
        case 426: return .upgradeRequired
        case 429: return .tooManyRequests
        case 480: return .temporarilyUnavailable
        case 481: return .callDoesNotExist
        case 484: return .addressIncomplete
        case 486: return .busyHere
        case 487: return .requestTerminated
        case 488: return .mediaNoSupportedCodec
        case 400...499: return .badRequest
        case 500: return .internalServerError
        case 502: return .badGateway
        case 503: return .serviceUnavailable
        case 504: return .gatewayTimeout
        case 500...599: return .internalServerError
        case 600: return .busyEverywhere
        case 603: return .decline
        case 604: return .doesNotExistAnywhere
        case 600...699: return .busyEverywhere
        default: return nil
        }
    }
}
