/// Why a challenge could not be parsed or answered, or why authentication gave up.
///
/// Errors compare by kind only; ``detail`` carries the specifics (a parameter name, a realm)
/// for logs and is part of ``description``.
package struct SIPAuthError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case malformedChallenge
        case unsupportedScheme
        case unsupportedAlgorithm
        case unsupportedQOP
        case missingParameter
        case duplicateParameter
        case limitExceeded
        case noCredentials
        case authenticationFailed
    }

    private let kind: Kind
    /// Specifics for logs: the offending parameter, scheme, algorithm or realm. Not compared.
    package let detail: String

    private init(_ kind: Kind, _ detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    /// The challenge's syntax is broken: bad token, unterminated quoted string, control
    /// character, missing `=`.
    package static let malformedChallenge = SIPAuthError(.malformedChallenge)
    /// The challenge's scheme is neither `Digest` nor `Bearer`.
    package static let unsupportedScheme = SIPAuthError(.unsupportedScheme)
    /// The Digest algorithm is not MD5, MD5-sess, SHA-256 or SHA-256-sess.
    package static let unsupportedAlgorithm = SIPAuthError(.unsupportedAlgorithm)
    /// The challenge offers qop values of which none is `auth` or `auth-int`.
    package static let unsupportedQOP = SIPAuthError(.unsupportedQOP)
    /// A parameter the scheme requires (`realm`, `nonce`) is absent.
    package static let missingParameter = SIPAuthError(.missingParameter)
    /// The same parameter appears twice in one challenge.
    package static let duplicateParameter = SIPAuthError(.duplicateParameter)
    /// The header value, a parameter value or the parameter count is over its limit.
    package static let limitExceeded = SIPAuthError(.limitExceeded)
    /// No credentials are configured for the challenged realm or scheme.
    package static let noCredentials = SIPAuthError(.noCredentials)
    /// The realm rejected the credentials again after one answered challenge (no `stale=true`):
    /// the password or token is wrong. Never retried.
    package static let authenticationFailed = SIPAuthError(.authenticationFailed)

    /// The same error kind carrying `detail`.
    func with(_ detail: String) -> SIPAuthError { SIPAuthError(kind, detail) }

    package static func == (lhs: SIPAuthError, rhs: SIPAuthError) -> Bool { lhs.kind == rhs.kind }
    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// A sentence naming the problem and its detail.
    package var description: String {
        let base: String
        switch kind {
        case .malformedChallenge: base = "malformed authentication challenge"
        case .unsupportedScheme: base = "unsupported authentication scheme"
        case .unsupportedAlgorithm: base = "unsupported digest algorithm"
        case .unsupportedQOP: base = "no supported qop (auth, auth-int) offered"
        case .missingParameter: base = "challenge lacks a required parameter"
        case .duplicateParameter: base = "challenge repeats a parameter"
        case .limitExceeded: base = "challenge exceeds a size limit"
        case .noCredentials: base = "no credentials for the challenge"
        case .authenticationFailed: base = "authentication failed: credentials rejected"
        }
        return detail.isEmpty ? base : "\(base): \(detail)"
    }
}
