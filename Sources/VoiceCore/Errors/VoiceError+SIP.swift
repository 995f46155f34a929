import VoiceSIP
import VoiceSIPAgent

extension VoiceError {
    /// The reason phrase this SDK sends with the 600 that rejects a call invite, so that the
    /// caller's error reads "Busy Everywhere: SIP/2.0 600 Call Rejected" as in Twilio's SDK.
    package static let rejectReasonPhrase = "Call Rejected"

    /// The code for one of VoiceSIP's failure codes. Every `SIPFailureCode` but one has a
    /// case with the same number; `generalError` (31000, a 3xx redirect the stack did not
    /// follow) is not in Twilio's list and becomes ``Code/badRequest``: the request, as sent,
    /// could not be completed.
    package static func code(for sipCode: SIPFailureCode) -> Code {
        Code(rawValue: sipCode.code) ?? .badRequest
    }

    /// The error for a SIP final response status (300–699), with "SIP/2.0 <status> <phrase>"
    /// as the failure reason; nil for 1xx, 2xx and numbers outside 100–699.
    ///
    /// The codes are VoiceSIP's `SIPErrorMapping`: 403 → 31403 … 604 → 31604, 488 → 53404,
    /// other 4xx/5xx/6xx → 31400/31500/31600, a bare 401/407 → 31201 (the challenge went
    /// unanswered; credentials that were answered and refused again arrive as
    /// `SIPFailure.authenticationFailed`, 20151).
    /// - Parameters:
    ///   - status: The SIP status code of a final failure response (300–699).
    ///   - reasonPhrase: The phrase received; RFC 3261's phrase when nil.
    package init?(sipStatus status: Int, reasonPhrase: String? = nil) {
        guard let sipCode = SIPErrorMapping.failureCode(statusCode: status) else { return nil }
        let phrase = reasonPhrase ?? SIPResponse.standardReasonPhrase(for: status)
        self.init(Self.code(for: sipCode), failureReason: "SIP/2.0 \(status) \(phrase)", sipStatus: status)
    }

    /// The error for a failed SIP request (INVITE, BYE, INFO…), through VoiceSIP's `SIPErrorMapping`.
    /// - Parameter detail: what happened, for ``failureReason``; a default text when nil.
    package init(sipFailure failure: SIPFailure, detail: String? = nil) {
        switch failure {
        case .finalResponse(let status):
            if let error = VoiceError(sipStatus: status) {
                self.init(error.code, failureReason: detail ?? error.failureReason, sipStatus: status)
            } else {
                self.init(.badRequest, failureReason: detail ?? "Unexpected final status \(status)", sipStatus: status)
            }
        default:
            let sipCode = SIPErrorMapping.failureCode(for: failure)
            self.init(Self.code(for: sipCode), failureReason: detail ?? Self.defaultDetail(failure))
        }
    }

    /// The error for a transport failure: DNS → 31530, connection set-up/TLS/closed → 31005,
    /// anything else → 31009 (through `SIPTransportError.failure`).
    package init(transportError: SIPTransportError) {
        self.init(sipFailure: transportError.failure, detail: transportError.description)
    }

    /// The error a failed registration reports: the code of a specific failure (20151 wrong
    /// credentials, 31201 unanswerable challenge, 31005/31009/31530 transport, 31408 timeout,
    /// and final statuses that have a code of their own such as 403 → 31403 or 503 → 31503);
    /// 31301 `registrationError` when there is no better code (a status that would only get
    /// a generic 31400/31500/31600, 488, or a 3xx).
    package init(registrationFailure failure: SIPFailure) {
        let mapped = VoiceError(sipFailure: failure)
        if case .finalResponse(let status) = failure, mapped.code.rawValue != 31_000 + status {
            self.init(.registrationError, failureReason: mapped.failureReason, sipStatus: status)
        } else {
            self = mapped
        }
    }

    /// The error that ends a SIP session, or nil when the session ended normally
    /// (``SIPSessionEndReason/localHangUp``, ``SIPSessionEndReason/remoteHangUp``,
    /// ``SIPSessionEndReason/cancelledByLocal``).
    ///
    /// - `rejected(600)` and `declined(600)` → 31600 "SIP/2.0 600 Call Rejected";
    ///   `rejected(401/407)` → 20151 (the server refused us at authentication); other
    ///   statuses as ``init(sipStatus:reasonPhrase:)``.
    /// - `cancelledByRemote` → 31008 `callCancelled` with SIP status 487: the caller cancelled
    ///   before the invite was accepted (what `CancelledCallInvite` reports). A 487 *received*
    ///   for our own INVITE that we did not cancel is 31487 `requestTerminated`.
    /// - `failed(failure)` → ``init(sipFailure:detail:)``.
    /// - `ackTimeout` → 31408 `requestTimeout` (no ACK for our 2xx within 64·T1).
    /// - `provisionalNotAcknowledged` → 31408 `requestTimeout` (no PRACK for our reliable
    ///   provisional response within 64·T1, RFC 3262).
    /// - `sessionExpired` → 31005 `connectionError`: no session refresh came (RFC 4028), the
    ///   far end or the path to it is gone.
    /// - `redirectFailed` → what the 3xx's status maps to, with why it could not be followed
    ///   (a loop, too many redirects, no Contact that can be called) as the reason.
    /// - `mediaNegotiationFailed` → ``init(negotiationError:)``.
    package init?(sessionEndReason reason: SIPSessionEndReason) {
        switch reason {
        case .localHangUp, .remoteHangUp, .cancelledByLocal:
            return nil
        case .cancelledByRemote:
            self.init(.callCancelled, failureReason: "The caller cancelled the call (SIP/2.0 487 Request Terminated)", sipStatus: 487)
        case .rejected(let status), .declined(let status):
            if status == 600 {
                self.init(.busyEverywhere, failureReason: "SIP/2.0 600 \(Self.rejectReasonPhrase)", sipStatus: 600)
            } else if case .rejected = reason, status == 401 || status == 407 {
                let phrase = SIPResponse.standardReasonPhrase(for: status)
                self.init(.authFailure, failureReason: "SIP/2.0 \(status) \(phrase)", sipStatus: status)
            } else if let error = VoiceError(sipStatus: status) {
                self = error
            } else {
                self.init(.badRequest, failureReason: "Unexpected final status \(status)", sipStatus: status)
            }
        case .failed(let failure):
            self.init(sipFailure: failure)
        case .ackTimeout:
            self.init(.requestTimeout, failureReason: "No ACK arrived for the 2xx response")
        case .provisionalNotAcknowledged:
            self.init(.requestTimeout, failureReason: "No PRACK arrived for the reliable provisional response (RFC 3262)")
        case .sessionExpired:
            self.init(.connectionError, failureReason: "The session expired: no session refresh came in time (RFC 4028)")
        case .redirectFailed(let failure):
            let status: Int
            let why: String
            switch failure {
            case .loop(let s): (status, why) = (s, "a redirect loop: every Contact was a target already tried")
            case .tooManyRedirects(let s): (status, why) = (s, "more than \(SIPRedirects.maximumRedirects) redirects")
            case .noUsableContact(let s): (status, why) = (s, "a redirect with no Contact that can be called")
            }
            self = VoiceError(sipStatus: status).map { VoiceError($0.code, failureReason: "SIP/2.0 \(status): \(why)", sipStatus: status) }
                ?? VoiceError(.badRequest, failureReason: "SIP/2.0 \(status): \(why)", sipStatus: status)
        case .mediaNegotiationFailed(let error):
            self.init(negotiationError: error)
        }
    }

    /// The error for a failed SDP offer/answer: no common codec → 53404; the answer rejected
    /// our stream → 53403 (the peer could not apply our description); glare or missing DTLS
    /// configuration → 53400 (we could not create our description); anything else about the
    /// peer's SDP (no audio, no crypto suite, encryption policy, DTLS setup, fingerprint or
    /// rtcp-mux, a mismatched answer, an answer without an offer) → 53402.
    package init(negotiationError error: SDPNegotiationError) {
        let code: Code
        switch error {
        case .noCommonCodec: code = .mediaNoSupportedCodec
        case .streamRejected: code = .mediaServerRemoteDescFailed
        case .offerPending, .dtlsNotConfigured: code = .mediaClientLocalDescFailed
        case .noAudioStream, .noCommonCryptoSuite, .encryptionRequired, .encryptionNotEnabled, .answerMismatch,
            .noOfferPending, .dtlsRequired, .dtlsNotEnabled, .rtcpMuxRequired, .noUsableFingerprint, .dtlsSetupRefused:
            code = .mediaClientRemoteDescFailed
        }
        self.init(code, failureReason: error.description)
    }

    /// 53405: no media from the peer (silence beyond the reconnect timeout, or the stream failed).
    package static func mediaConnectionFailed(_ detail: String) -> VoiceError {
        VoiceError(.mediaConnectionError, failureReason: detail)
    }

    /// 53001: the TCP/TLS signaling connection was lost.
    package static func signalingConnectionLost(_ detail: String) -> VoiceError {
        VoiceError(.signalingConnectionDisconnected, failureReason: detail)
    }

    private static func defaultDetail(_ failure: SIPFailure) -> String {
        switch failure {
        case .finalResponse(let status): "SIP/2.0 \(status)"
        case .authenticationFailed: "The credentials were rejected"
        case .challengeUnanswerable: "The authentication challenge could not be answered"
        case .transportError: "The transport could not send or receive"
        case .connectionError: "The connection to the server failed"
        case .dnsResolutionFailure: "The server's host name did not resolve"
        case .transactionTimeout: "No response from the server"
        }
    }
}
