import Crypto
import VoiceSupport
import Foundation

/// The server side of Digest authentication (RFC 3261 §22.4, RFC 7616), for a user agent that
/// challenges the requests it receives: it issues challenges and checks the answers.
///
/// Stateless, so a flood of unauthenticated requests costs no memory: a nonce is the time it
/// was issued plus an HMAC of that time under a key known only to this verifier, so any nonce
/// it issued can be checked without remembering it, and is refused once older than
/// ``nonceLifetime``. The time is the caller's clock (the user agent's: monotonic, or virtual
/// in tests), read by nobody else: only this verifier checks its nonces. An unknown user and a wrong password get the same answer, so a prober
/// cannot tell which user names exist.
package struct SIPDigestVerifier: Sendable {
    /// What an Authorization value proved.
    package enum Verdict: Hashable, Sendable {
        /// The credentials of this user, on a live nonce.
        case authenticated(username: String)
        /// Good credentials on a nonce that has expired: challenge again with `stale=true`.
        case stale
        /// Missing, malformed or wrong.
        case rejected
    }

    /// The protection space named in challenges.
    package let realm: String
    /// How long a nonce stays good.
    package let nonceLifetime: MediaTime
    private let passwords: [String: String]
    private let key: [UInt8]

    /// - Parameters:
    ///   - realm: the realm of the challenges.
    ///   - credentials: who may authenticate (user names and passwords).
    ///   - nonceLifetime: how long a nonce stays good.
    package init(realm: String, credentials: [SIPAuthCredentials], nonceLifetime: MediaTime = .seconds(30)) {
        self.realm = realm
        self.nonceLifetime = nonceLifetime
        var passwords: [String: String] = [:]
        for c in credentials where c.bearerToken == nil { passwords[c.username] = c.password }
        self.passwords = passwords
        key = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// A `WWW-Authenticate` value: MD5 with qop=auth, a fresh nonce.
    package func challenge(now: MediaTime, stale: Bool = false) -> String {
        let challenge = DigestChallenge(realm: realm, nonce: nonce(issuedAt: now), stale: stale, algorithm: .md5, qopOptions: ["auth"])
        var value = "Digest realm=\(DigestAuthorization.quoted(challenge.realm)), nonce=\(DigestAuthorization.quoted(challenge.nonce)), algorithm=MD5, qop=\"auth\""
        if stale { value += ", stale=true" }
        return value
    }

    /// Checks an `Authorization` value sent with a `method` request.
    package func verify(_ authorization: String, method: String, now: MediaTime) -> Verdict {
        guard var reader = try? SIPAuthParamReader(authorization), let scheme = try? reader.readScheme(),
            scheme.lowercased() == "digest", let list = try? reader.readParameters()
        else { return .rejected }
        var fields: [String: String] = [:]
        for (name, value) in list { fields[name.lowercased()] = value }
        guard let username = fields["username"], let realm = fields["realm"], realm == self.realm,
            let nonce = fields["nonce"], let uri = fields["uri"], let response = fields["response"],
            let issued = issueTime(of: nonce),
            DigestAlgorithm(token: fields["algorithm"] ?? "MD5") == .md5
        else { return .rejected }
        let qop = fields["qop"]
        guard qop == nil || qop == "auth" else { return .rejected }
        let nonceCount = fields["nc"].flatMap { UInt32($0, radix: 16) } ?? 1
        let cnonce = fields["cnonce"] ?? ""
        if qop != nil, cnonce.isEmpty || fields["nc"] == nil { return .rejected }
        // Unknown users are checked against a password nobody has: the same work, the same answer.
        let password = passwords[username] ?? UUID().uuidString
        let expected = DigestAuthorization(
            answering: DigestChallenge(realm: realm, nonce: nonce, algorithm: .md5, qopOptions: qop == nil ? [] : ["auth"]),
            username: username, password: password, method: method, uri: uri, cnonce: cnonce, nonceCount: nonceCount)
        guard passwords[username] != nil, Self.constantTimeEqual(expected.response, response.lowercased()) else { return .rejected }
        guard now.nanoseconds / 1_000_000_000 - issued <= nonceLifetime.nanoseconds / 1_000_000_000 else { return .stale }
        return .authenticated(username: username)
    }

    /// `<seconds in hex>.<HMAC-SHA256 of them, 16 bytes in hex>`.
    private func nonce(issuedAt time: MediaTime) -> String {
        let stamp = String(UInt64(max(0, time.nanoseconds / 1_000_000_000)), radix: 16)
        return stamp + "." + mac(stamp)
    }

    /// When a nonce of ours was issued (whole seconds of the clock); nil for one we did not issue.
    private func issueTime(of nonce: String) -> Int64? {
        let parts = nonce.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count <= 15, let seconds = Int64(parts[0], radix: 16),
            Self.constantTimeEqual(mac(String(parts[0])), String(parts[1]))
        else { return nil }
        return seconds
    }

    private func mac(_ text: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: key))
        return code.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
