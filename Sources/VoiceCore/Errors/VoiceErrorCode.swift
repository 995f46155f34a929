extension VoiceError {
    /// An SDK error code. Names and raw values are Twilio's `TVOError` list with the prefix and
    /// suffix removed (`TVOErrorBusyEverywhereError = 31600` is ``busyEverywhere``).
    ///
    /// The SIP codes (31xxx) agree with VoiceSIP's `SIPFailureCode`, which the mappings in
    /// ``VoiceError`` are built from; `SIPFailureCode.generalError` (31000, an unfollowed 3xx
    /// redirect) has no case here and becomes ``badRequest``.
    public enum Code: Int, Sendable, CaseIterable, CustomStringConvertible {
        /// 20101: the access token is not a well-formed JWT.
        case accessTokenInvalid = 20101
        /// 20102: the access token's header is invalid.
        case accessTokenHeaderInvalid = 20102
        /// 20103: the access token's issuer (`iss`) is missing or invalid.
        case accessTokenIssuerInvalid = 20103
        /// 20104: the access token has expired.
        case accessTokenExpired = 20104
        /// 20105: the access token is not valid yet (`nbf` is in the future).
        case accessTokenNotYetValid = 20105
        /// 20106: the access token's grants are missing or invalid.
        case accessTokenGrantsInvalid = 20106
        /// 20107: the access token's signature is missing or invalid.
        case accessTokenSignatureInvalid = 20107
        /// 20151: the credentials or token were rejected.
        case authFailure = 20151
        /// 20157: the access token lives longer than allowed (24 hours).
        case expirationTimeExceedsMaxTimeAllowed = 20157
        /// 20403: access to the resource is forbidden.
        case accessForbidden = 20403
        /// 21218: the application (TwiML app) was not found.
        case applicationNotFound = 21218
        /// 31005: the signaling connection could not be set up or broke.
        case connectionError = 31005
        /// 31008: the call was cancelled.
        case callCancelled = 31008
        /// 31009: no transport available to send or receive messages.
        case transportError = 31009
        /// 31100: the request was malformed (for example an invalid destination or parameter).
        case malformedRequest = 31100
        /// 31201: authorization could not be done.
        case authorizationError = 31201
        /// 31301: registration failed.
        case registrationError = 31301
        /// 31302: a CANCEL message could not be handled.
        case unsupportedCancelMessage = 31302
        /// 31400: SIP 400 Bad Request, and other 4xx with no code of their own.
        case badRequest = 31400
        /// 31403: SIP 403 Forbidden.
        case forbidden = 31403
        /// 31404: SIP 404 Not Found.
        case notFound = 31404
        /// 31408: SIP 408 Request Timeout, or no response at all.
        case requestTimeout = 31408
        /// 31409: SIP 409 Conflict.
        case conflict = 31409
        /// 31426: SIP 426 Upgrade Required.
        case upgradeRequired = 31426
        /// 31429: SIP 429 Too Many Requests.
        case tooManyRequests = 31429
        /// 31480: SIP 480 Temporarily Unavailable.
        case temporarilyUnavailable = 31480
        /// 31481: SIP 481 Call/Transaction Does Not Exist.
        case callDoesNotExist = 31481
        /// 31484: SIP 484 Address Incomplete.
        case addressIncomplete = 31484
        /// 31486: SIP 486 Busy Here.
        case busyHere = 31486
        /// 31487: SIP 487 Request Terminated.
        case requestTerminated = 31487
        /// 31500: SIP 500 Server Internal Error, and other 5xx with no code of their own.
        case internalServerError = 31500
        /// 31502: SIP 502 Bad Gateway.
        case badGateway = 31502
        /// 31503: SIP 503 Service Unavailable.
        case serviceUnavailable = 31503
        /// 31504: SIP 504 Server Time-out.
        case gatewayTimeout = 31504
        /// 31530: the server's host name did not resolve.
        case dnsResolution = 31530
        /// 31600: SIP 600 Busy Everywhere (a rejected call invite), and other 6xx.
        case busyEverywhere = 31600
        /// 31603: SIP 603 Decline.
        case decline = 31603
        /// 31604: SIP 604 Does Not Exist Anywhere.
        case doesNotExistAnywhere = 31604
        /// 51007: the token was rejected by the server's authentication.
        case tokenAuthenticationRejected = 51007
        /// 53001: the signaling connection was lost.
        case signalingConnectionDisconnected = 53001
        /// 53400: this side could not create or apply its local media description.
        case mediaClientLocalDescFailed = 53400
        /// 53401: the peer could not create or apply its local media description.
        case mediaServerLocalDescFailed = 53401
        /// 53402: this side could not apply the peer's media description.
        case mediaClientRemoteDescFailed = 53402
        /// 53403: the peer could not apply this side's media description.
        case mediaServerRemoteDescFailed = 53403
        /// 53404: no codec both sides support.
        case mediaNoSupportedCodec = 53404
        /// 53405: the media connection failed (no media from the peer).
        case mediaConnectionError = 53405
        /// 53407: the media connection failed during the DTLS handshake.
        case mediaDtlsTransportFailed = 53407

        /// The code's name as in Twilio's list without its prefix and suffix, e.g. "busyEverywhere"
        /// (`TVOErrorBusyEverywhereError`); VoiceSIP's `SIPFailureCode.name` uses the same names.
        public var name: String {
            switch self {
            case .accessTokenInvalid: "accessTokenInvalid"
            case .accessTokenHeaderInvalid: "accessTokenHeaderInvalid"
            case .accessTokenIssuerInvalid: "accessTokenIssuerInvalid"
            case .accessTokenExpired: "accessTokenExpired"
            case .accessTokenNotYetValid: "accessTokenNotYetValid"
            case .accessTokenGrantsInvalid: "accessTokenGrantsInvalid"
            case .accessTokenSignatureInvalid: "accessTokenSignatureInvalid"
            case .authFailure: "authFailure"
            case .expirationTimeExceedsMaxTimeAllowed: "expirationTimeExceedsMaxTimeAllowed"
            case .accessForbidden: "accessForbidden"
            case .applicationNotFound: "applicationNotFound"
            case .connectionError: "connectionError"
            case .callCancelled: "callCancelled"
            case .transportError: "transportError"
            case .malformedRequest: "malformedRequest"
            case .authorizationError: "authorizationError"
            case .registrationError: "registrationError"
            case .unsupportedCancelMessage: "unsupportedCancelMessage"
            case .badRequest: "badRequest"
            case .forbidden: "forbidden"
            case .notFound: "notFound"
            case .requestTimeout: "requestTimeout"
            case .conflict: "conflict"
            case .upgradeRequired: "upgradeRequired"
            case .tooManyRequests: "tooManyRequests"
            case .temporarilyUnavailable: "temporarilyUnavailable"
            case .callDoesNotExist: "callDoesNotExist"
            case .addressIncomplete: "addressIncomplete"
            case .busyHere: "busyHere"
            case .requestTerminated: "requestTerminated"
            case .internalServerError: "internalServerError"
            case .badGateway: "badGateway"
            case .serviceUnavailable: "serviceUnavailable"
            case .gatewayTimeout: "gatewayTimeout"
            case .dnsResolution: "dnsResolution"
            case .busyEverywhere: "busyEverywhere"
            case .decline: "decline"
            case .doesNotExistAnywhere: "doesNotExistAnywhere"
            case .tokenAuthenticationRejected: "tokenAuthenticationRejected"
            case .signalingConnectionDisconnected: "signalingConnectionDisconnected"
            case .mediaClientLocalDescFailed: "mediaClientLocalDescFailed"
            case .mediaServerLocalDescFailed: "mediaServerLocalDescFailed"
            case .mediaClientRemoteDescFailed: "mediaClientRemoteDescFailed"
            case .mediaServerRemoteDescFailed: "mediaServerRemoteDescFailed"
            case .mediaNoSupportedCodec: "mediaNoSupportedCodec"
            case .mediaConnectionError: "mediaConnectionError"
            case .mediaDtlsTransportFailed: "mediaDtlsTransportFailed"
            }
        }

        /// The short human-readable text for the code, Twilio's wording where it has one
        /// (e.g. "Busy Everywhere"). This is ``VoiceError/localizedDescription``.
        public var description: String {
            switch self {
            case .accessTokenInvalid: "Invalid Access Token"
            case .accessTokenHeaderInvalid: "Invalid Access Token header"
            case .accessTokenIssuerInvalid: "Invalid Access Token issuer/subject"
            case .accessTokenExpired: "Access Token expired or expiration date invalid"
            case .accessTokenNotYetValid: "Access Token not yet valid"
            case .accessTokenGrantsInvalid: "Invalid Access Token grants"
            case .accessTokenSignatureInvalid: "Invalid Access Token signature"
            case .authFailure: "Failed to authenticate the client"
            case .expirationTimeExceedsMaxTimeAllowed: "Expiration Time in the Access Token Exceeds Maximum Time Allowed"
            case .accessForbidden: "Access Forbidden"
            case .applicationNotFound: "Application not found"
            case .connectionError: "Connection error"
            case .callCancelled: "Call Cancelled"
            case .transportError: "Transport error"
            case .malformedRequest: "Malformed request"
            case .authorizationError: "Authorization error"
            case .registrationError: "Registration error"
            case .unsupportedCancelMessage: "Unsupported Cancel Message"
            case .badRequest: "Bad Request"
            case .forbidden: "Forbidden"
            case .notFound: "Not Found"
            case .requestTimeout: "Request Timeout"
            case .conflict: "Conflict"
            case .upgradeRequired: "Upgrade Required"
            case .tooManyRequests: "Too Many Requests"
            case .temporarilyUnavailable: "Temporarily Unavailable"
            case .callDoesNotExist: "Call/Transaction Does Not Exist"
            case .addressIncomplete: "Address Incomplete"
            case .busyHere: "Busy Here"
            case .requestTerminated: "Request Terminated"
            case .internalServerError: "Internal Server Error"
            case .badGateway: "Bad Gateway"
            case .serviceUnavailable: "Service Unavailable"
            case .gatewayTimeout: "Gateway Timeout"
            case .dnsResolution: "DNS Resolution Error"
            case .busyEverywhere: "Busy Everywhere"
            case .decline: "Decline"
            case .doesNotExistAnywhere: "Does Not Exist Anywhere"
            case .tokenAuthenticationRejected: "Token authentication is rejected by authentication service"
            case .signalingConnectionDisconnected: "Signaling connection disconnected"
            case .mediaClientLocalDescFailed: "Client is unable to create or apply a local media description"
            case .mediaServerLocalDescFailed: "Server is unable to create or apply a local media description"
            case .mediaClientRemoteDescFailed: "Client is unable to apply a remote media description"
            case .mediaServerRemoteDescFailed: "Server is unable to apply a remote media description"
            case .mediaNoSupportedCodec: "No supported codec"
            case .mediaConnectionError: "Media connection failed"
            case .mediaDtlsTransportFailed: "Media connection failed due to DTLS handshake failure"
            }
        }
    }
}
