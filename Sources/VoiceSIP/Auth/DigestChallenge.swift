/// A parsed Digest challenge from a WWW-Authenticate or Proxy-Authenticate value
/// (RFC 2617 §3.2.1, RFC 7616 §3.3, RFC 3261 §22.4).
package struct DigestChallenge: Hashable, Sendable {
    /// The protection space; credentials are chosen by it.
    package var realm: String
    /// The server nonce.
    package var nonce: String
    /// Opaque data to return unchanged, if any.
    package var opaque: String?
    /// True when the previous request's nonce was stale but its credentials were good: retry
    /// with the new nonce.
    package var stale: Bool
    /// The hash algorithm (MD5 when the challenge names none).
    package var algorithm: DigestAlgorithm
    /// The qop values offered, lowercased, in order; empty for an RFC 2069 style challenge.
    package var qopOptions: [String]
    /// True when the server asks for a hashed username (RFC 7616 §3.4.4).
    package var userhash: Bool

    /// Creates a challenge from its parts.
    package init(
        realm: String, nonce: String, opaque: String? = nil, stale: Bool = false,
        algorithm: DigestAlgorithm = .md5, qopOptions: [String] = ["auth"], userhash: Bool = false
    ) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.stale = stale
        self.algorithm = algorithm
        self.qopOptions = qopOptions
        self.userhash = userhash
    }

    /// The qop this stack answers with: `auth` when offered, else `auth-int`, else none for a
    /// challenge that offers no qop at all.
    package var selectedQOP: DigestQOP? {
        if qopOptions.contains("auth") { return .auth }
        if qopOptions.contains("auth-int") { return .authInt }
        return nil
    }

    /// Parses a whole header value that must be a Digest challenge.
    ///
    /// - Throws: ``SIPAuthError/unsupportedScheme`` for another scheme,
    ///   ``SIPAuthError/unsupportedAlgorithm``, ``SIPAuthError/unsupportedQOP``,
    ///   ``SIPAuthError/missingParameter``, ``SIPAuthError/malformedChallenge`` and the rest.
    package init(parsing headerValue: String) throws(SIPAuthError) {
        guard case .digest(let challenge) = try SIPAuthChallenge(parsing: headerValue) else {
            throw SIPAuthError.unsupportedScheme.with("expected Digest")
        }
        self = challenge
    }

    /// Builds a challenge from the parameters after the `Digest` scheme token.
    init(parameters: [(name: String, value: String)]) throws(SIPAuthError) {
        var realm: String?
        var nonce: String?
        var opaque: String?
        var stale = false
        var algorithm = DigestAlgorithm.md5
        var qop: [String]?
        var userhash = false
        for (name, value) in parameters {
            switch name {
            case "realm": realm = value
            case "nonce": nonce = value
            case "opaque": opaque = value
            case "stale": stale = value.lowercased() == "true"
            case "userhash": userhash = value.lowercased() == "true"
            case "algorithm":
                guard let parsed = DigestAlgorithm(token: value) else {
                    throw SIPAuthError.unsupportedAlgorithm.with(value)
                }
                algorithm = parsed
            case "qop":
                qop = value.split(separator: ",").map { Self.trimmed($0).lowercased() }.filter { !$0.isEmpty }
            default:
                continue  // domain, charset and extensions do not change the answer
            }
        }
        guard let realm else { throw SIPAuthError.missingParameter.with("realm") }
        guard let nonce, !nonce.isEmpty else { throw SIPAuthError.missingParameter.with("nonce") }
        if let qop {
            guard qop.contains("auth") || qop.contains("auth-int") else {
                throw SIPAuthError.unsupportedQOP.with(qop.joined(separator: ","))
            }
        }
        self.init(
            realm: realm, nonce: nonce, opaque: opaque, stale: stale, algorithm: algorithm,
            qopOptions: qop ?? [], userhash: userhash)
    }

    /// `part` without leading and trailing spaces and tabs.
    private static func trimmed(_ part: Substring) -> String {
        var slice = part
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
