/// Why a SIP request (INVITE, REGISTER...) failed, as the lower layers report it. Mapped to
/// an SDK code by ``SIPErrorMapping/failureCode(for:)``.
package enum SIPFailure: Hashable, Sendable {
    /// A final response of 300–699 ended the request.
    case finalResponse(statusCode: Int)
    /// The realm rejected the credentials again after one retry (the authenticator gave up
    /// with ``SIPAuthError/authenticationFailed``).
    case authenticationFailed
    /// A 401/407 challenge could not be answered: no credentials for the realm, no supported
    /// scheme, algorithm or qop, or a malformed challenge.
    case challengeUnanswerable
    /// The transport could not send or receive (socket error, no route, TLS failure mid-flow).
    case transportError
    /// The connection to the server could not be set up or was lost (TCP/TLS connect, reset).
    case connectionError
    /// The server's host name did not resolve (A/AAAA/SRV/NAPTR).
    case dnsResolutionFailure
    /// The client transaction timed out with no final response (Timer B or F, RFC 3261 §17.1).
    case transactionTimeout
}

extension SIPFailure {
    /// The failure an authenticator error ends a request with:
    /// ``SIPAuthError/authenticationFailed`` is ``authenticationFailed`` (20151); every other
    /// auth error means the challenge could not be answered, ``challengeUnanswerable`` (31201).
    package init(_ authError: SIPAuthError) {
        self = authError == .authenticationFailed ? .authenticationFailed : .challengeUnanswerable
    }
}
