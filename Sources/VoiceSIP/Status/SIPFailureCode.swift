/// An SDK error code for a failed call or registration, with Twilio's numbering and name
/// (`TVOError`: `TVOErrorBusyHereError = 31486` becomes code 31486, name "busyHere").
///
/// The public API maps these onto its own error enum; VoiceSIP only produces them, through
/// ``SIPErrorMapping``.
package struct SIPFailureCode: Hashable, Sendable, CustomStringConvertible {
    /// The numeric code (e.g. 31486).
    package let code: Int
    /// Twilio's name without its prefix and suffix, lower camel case (e.g. "busyHere").
    package let name: String
    /// A short human-readable explanation.
    package let message: String

    private init(_ code: Int, _ name: String, _ message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// "31486 busyHere: The callee is busy".
    package var description: String { "\(code) \(name): \(message)" }

    /// 20151: the credentials were rejected (Digest/Bearer give-up rule).
    package static let authFailure = SIPFailureCode(20151, "authFailure", "Failed to authenticate the client")
    /// 31000: a failure no more specific code describes (an unfollowed 3xx redirect).
    package static let generalError = SIPFailureCode(31000, "generalError", "General error")
    /// 31005: the signaling connection could not be set up or broke.
    package static let connectionError = SIPFailureCode(31005, "connectionError", "Connection error")
    /// 31009: no transport available to send or receive messages.
    package static let transportError = SIPFailureCode(31009, "transportError", "Transport error")
    /// 31201: authorization could not be done (challenge unanswerable: no credentials, no
    /// supported scheme or algorithm, malformed challenge).
    package static let authorizationError = SIPFailureCode(31201, "authorizationError", "Authorization error")
    /// 31400: 400 Bad Request, and the generic code for other 4xx.
    package static let badRequest = SIPFailureCode(31400, "badRequest", "Bad Request")
    /// 31403: 403 Forbidden.
    package static let forbidden = SIPFailureCode(31403, "forbidden", "Forbidden")
    /// 31404: 404 Not Found.
    package static let notFound = SIPFailureCode(31404, "notFound", "Not Found")
    /// 31408: 408 Request Timeout, or a transaction timeout (Timer B/F).
    package static let requestTimeout = SIPFailureCode(31408, "requestTimeout", "Request Timeout")
    /// 31409: 409 Conflict.
    package static let conflict = SIPFailureCode(31409, "conflict", "Conflict")
    /// 31426: 426 Upgrade Required.
    package static let upgradeRequired = SIPFailureCode(31426, "upgradeRequired", "Upgrade Required")
    /// 31429: 429 Too Many Requests.
    package static let tooManyRequests = SIPFailureCode(31429, "tooManyRequests", "Too Many Requests")
    /// 31480: 480 Temporarily Unavailable.
    package static let temporarilyUnavailable = SIPFailureCode(
        31480, "temporarilyUnavailable", "Temporarily Unavailable")
    /// 31481: 481 Call/Transaction Does Not Exist.
    package static let callDoesNotExist = SIPFailureCode(
        31481, "callDoesNotExist", "Call/Transaction Does Not Exist")
    /// 31484: 484 Address Incomplete.
    package static let addressIncomplete = SIPFailureCode(31484, "addressIncomplete", "Address Incomplete")
    /// 31486: 486 Busy Here.
    package static let busyHere = SIPFailureCode(31486, "busyHere", "Busy Here")
    /// 31487: 487 Request Terminated.
    package static let requestTerminated = SIPFailureCode(31487, "requestTerminated", "Request Terminated")
    /// 31500: 500 Server Internal Error, and the generic code for other 5xx.
    package static let internalServerError = SIPFailureCode(
        31500, "internalServerError", "Internal Server Error")
    /// 31502: 502 Bad Gateway.
    package static let badGateway = SIPFailureCode(31502, "badGateway", "Bad Gateway")
    /// 31503: 503 Service Unavailable.
    package static let serviceUnavailable = SIPFailureCode(31503, "serviceUnavailable", "Service Unavailable")
    /// 31504: 504 Server Time-out.
    package static let gatewayTimeout = SIPFailureCode(31504, "gatewayTimeout", "Gateway Timeout")
    /// 31530: the server's name did not resolve.
    package static let dnsResolutionError = SIPFailureCode(31530, "dnsResolutionError", "DNS Resolution Error")
    /// 31600: 600 Busy Everywhere, and the generic code for other 6xx.
    package static let busyEverywhere = SIPFailureCode(31600, "busyEverywhere", "Busy Everywhere")
    /// 31603: 603 Decline.
    package static let decline = SIPFailureCode(31603, "decline", "Decline")
    /// 31604: 604 Does Not Exist Anywhere.
    package static let doesNotExistAnywhere = SIPFailureCode(
        31604, "doesNotExistAnywhere", "Does Not Exist Anywhere")
    /// 53404: 488 Not Acceptable Here: the peer accepted none of the offered codecs.
    package static let mediaNoSupportedCodec = SIPFailureCode(53404, "mediaNoSupportedCodec", "No supported codec")

    /// Every code this type defines, in numeric order.
    package static let all: [SIPFailureCode] = [
        .authFailure, .generalError, .connectionError, .transportError, .authorizationError, .badRequest,
        .forbidden, .notFound, .requestTimeout, .conflict, .upgradeRequired, .tooManyRequests,
        .temporarilyUnavailable, .callDoesNotExist, .addressIncomplete, .busyHere, .requestTerminated,
        .internalServerError, .badGateway, .serviceUnavailable, .gatewayTimeout, .dnsResolutionError,
        .busyEverywhere, .decline, .doesNotExistAnywhere, .mediaNoSupportedCodec,
    ]

    /// The code with number `code`, if this type defines it.
    package init?(code: Int) {
        guard let found = Self.all.first(where: { $0.code == code }) else { return nil }
        self = found
    }
}
