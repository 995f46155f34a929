/// One challenge from a WWW-Authenticate (401) or Proxy-Authenticate (407) header value.
///
/// SIP carries one challenge per header value (RFC 3261 §7.3.1 exempts these headers from
/// comma-joining), so a value is parsed as exactly one challenge.
package enum SIPAuthChallenge: Hashable, Sendable {
    /// A Digest challenge.
    case digest(DigestChallenge)
    /// A Bearer challenge.
    case bearer(BearerChallenge)

    /// Parses one header value.
    ///
    /// - Throws: ``SIPAuthError/unsupportedScheme`` for schemes other than Digest and Bearer;
    ///   ``SIPAuthError/malformedChallenge``, ``SIPAuthError/limitExceeded`` and the Digest
    ///   errors for broken input. Never traps on any input.
    package init(parsing headerValue: String) throws(SIPAuthError) {
        var reader = try SIPAuthParamReader(headerValue)
        reader.skipWhitespace()
        let scheme = try reader.readScheme()
        switch scheme.lowercased() {
        case "digest":
            self = .digest(try DigestChallenge(parameters: reader.readParameters()))
        case "bearer":
            self = .bearer(BearerChallenge(parameters: try reader.readParameters()))
        default:
            throw SIPAuthError.unsupportedScheme.with(scheme)
        }
    }

    /// The challenge's realm, if it has one.
    package var realm: String? {
        switch self {
        case .digest(let d): return d.realm
        case .bearer(let b): return b.realm
        }
    }
}

/// Whether a challenge came from the user agent server (401) or a proxy (407), which names
/// the headers on both sides.
package enum SIPAuthChallengeOrigin: Hashable, Sendable {
    /// 401 Unauthorized: WWW-Authenticate answered by Authorization.
    case server
    /// 407 Proxy Authentication Required: Proxy-Authenticate answered by Proxy-Authorization.
    case proxy

    /// The header carrying the challenge.
    package var challengeHeaderName: String {
        self == .server ? "WWW-Authenticate" : "Proxy-Authenticate"
    }

    /// The header carrying the answer.
    package var authorizationHeaderName: String {
        self == .server ? "Authorization" : "Proxy-Authorization"
    }

    /// The origin for a 401 or 407 status code; nil for any other.
    package init?(statusCode: Int) {
        switch statusCode {
        case 401: self = .server
        case 407: self = .proxy
        default: return nil
        }
    }
}
