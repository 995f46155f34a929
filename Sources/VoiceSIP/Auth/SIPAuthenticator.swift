import VoiceSupport

/// The credentials store of one user agent and the rules for answering challenges: a pure
/// value, driven by the transaction user.
///
/// The driver:
/// 1. on a 401/407, calls ``answer(challenges:origin:method:uri:body:)`` with every
///    WWW-Authenticate / Proxy-Authenticate value and resends the request (new CSeq) with the
///    returned headers; a thrown ``SIPAuthError/authenticationFailed`` ends the attempt;
/// 2. on any other final response to a request that carried those headers, calls
///    ``requestWasAccepted()``;
/// 3. for later requests in the same realms (re-REGISTER, BYE), may call
///    ``authorizationHeaders(method:uri:body:)`` to answer ahead with the cached nonce.
///
/// Give-up rule: once a realm's answer was sent, a new challenge from that realm before
/// ``requestWasAccepted()`` means the credentials were rejected, unless it says `stale=true`
/// with a nonce not already tried (then it is answered again, at most
/// ``maxStaleRetries`` times in a row). So a wrong password costs exactly one retry.
///
/// Nonce counts run per nonce, from 1, and are sent as 8 hex digits (RFC 7616 §3.4).
package struct SIPAuthenticator: Sendable {
    /// Consecutive `stale=true` challenges answered before giving up.
    package static let maxStaleRetries = 2

    /// The configured credentials, searched in order for the first that matches a realm.
    package private(set) var credentials: [SIPAuthCredentials]
    private var realms: [RealmKey: RealmState] = [:]
    private var order: [RealmKey] = []
    private let makeCNonce: @Sendable () -> String

    private struct RealmKey: Hashable, Sendable {
        var origin: SIPAuthChallengeOrigin
        var realm: String?
    }

    private enum Answer: Sendable {
        case digest(DigestChallenge, nonceCount: UInt32, credentials: SIPAuthCredentials)
        case bearer(token: String)
    }

    private struct RealmState: Sendable {
        var answer: Answer
        /// An answer went out and no verdict came back yet.
        var awaitingVerdict: Bool
        var staleRetries: Int
    }

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - credentials: credentials tried in order, the first matching a realm wins.
    ///   - cnonce: makes each client nonce; the default returns 32 random hex digits. Tests
    ///     pass a fixed value.
    package init(
        credentials: [SIPAuthCredentials],
        cnonce: @escaping @Sendable () -> String = { SIPAuthenticator.randomCNonce() }
    ) {
        self.credentials = credentials
        self.makeCNonce = cnonce
    }

    /// Replaces the credentials and forgets every cached nonce and verdict.
    package mutating func setCredentials(_ credentials: [SIPAuthCredentials]) {
        self.credentials = credentials
        realms = [:]
        order = []
    }

    /// Answers the challenges of one 401 or 407 response.
    ///
    /// Challenges this stack cannot use (other schemes, unsupported algorithms or qop,
    /// malformed values) are skipped while another is usable. Per realm the strongest usable
    /// Digest algorithm is chosen, or Bearer when a token is configured for it.
    ///
    /// - Parameters:
    ///   - challenges: every WWW-Authenticate (401) or Proxy-Authenticate (407) value.
    ///   - origin: `.server` for 401, `.proxy` for 407.
    ///   - method: the method of the request to resend.
    ///   - uri: its Request-URI.
    ///   - body: its body (hashed only for `auth-int`).
    /// - Returns: headers for the challenged realms, then for every other realm still cached,
    ///   so the resent request carries all credentials it has (RFC 3261 §22.3).
    /// - Throws: ``SIPAuthError/authenticationFailed`` under the give-up rule;
    ///   ``SIPAuthError/noCredentials`` when no challenge matches configured credentials; the
    ///   first parse error when no challenge could be parsed.
    package mutating func answer(
        challenges: [String], origin: SIPAuthChallengeOrigin, method: String, uri: String,
        body: [UInt8] = []
    ) throws(SIPAuthError) -> [SIPAuthorizationHeader] {
        var parsed: [SIPAuthChallenge] = []
        var firstError: SIPAuthError?
        for value in challenges {
            do throws(SIPAuthError) {
                parsed.append(try SIPAuthChallenge(parsing: value))
            } catch {
                firstError = firstError ?? error
            }
        }
        guard !parsed.isEmpty else {
            throw firstError ?? SIPAuthError.missingParameter.with("no challenge in the response")
        }

        // Pick one answer per realm, in the order realms first appear.
        var chosen: [(key: RealmKey, answer: Answer, stale: Bool)] = []
        for challenge in parsed {
            let key = RealmKey(origin: origin, realm: challenge.realm)
            guard let candidate = makeAnswer(challenge) else { continue }
            if let index = chosen.firstIndex(where: { $0.key == key }) {
                if Self.prefer(candidate.answer, over: chosen[index].answer) {
                    chosen[index] = (key, candidate.answer, candidate.stale)
                }
            } else {
                chosen.append((key, candidate.answer, candidate.stale))
            }
        }
        guard !chosen.isEmpty else {
            let names = parsed.map { $0.realm ?? "(no realm)" }.joined(separator: ", ")
            throw SIPAuthError.noCredentials.with(names)
        }

        // Apply the give-up rule before changing any state.
        for (key, answer, stale) in chosen {
            guard let previous = realms[key], previous.awaitingVerdict else { continue }
            let realmName = key.realm ?? "(no realm)"
            guard stale, case .digest(let newChallenge, _, _) = answer,
                case .digest(let oldChallenge, _, _) = previous.answer,
                newChallenge.nonce != oldChallenge.nonce,
                previous.staleRetries < Self.maxStaleRetries
            else {
                throw SIPAuthError.authenticationFailed.with(realmName)
            }
        }

        var headers: [SIPAuthorizationHeader] = []
        for (key, answer, _) in chosen {
            let previous = realms[key]
            let staleRetries = previous?.awaitingVerdict == true ? (previous?.staleRetries ?? 0) + 1 : 0
            var next = answer
            if case .digest(let challenge, _, let creds) = answer {
                var count: UInt32 = 1
                if let previous, case .digest(let old, let oldCount, _) = previous.answer,
                    old.nonce == challenge.nonce
                {
                    count = oldCount &+ 1
                }
                next = .digest(challenge, nonceCount: count, credentials: creds)
            }
            realms[key] = RealmState(answer: next, awaitingVerdict: true, staleRetries: staleRetries)
            if !order.contains(key) { order.append(key) }
            headers.append(header(for: key, answer: next, method: method, uri: uri, body: body))
        }
        let answered = Set(chosen.map { $0.key })
        for key in order where !answered.contains(key) {
            if let header = advance(key, method: method, uri: uri, body: body) { headers.append(header) }
        }
        return headers
    }

    /// Headers for a new request, answering ahead with every cached challenge (each Digest
    /// nonce count goes up by one). Empty before the first challenge.
    package mutating func authorizationHeaders(method: String, uri: String, body: [UInt8] = []) -> [SIPAuthorizationHeader] {
        var headers: [SIPAuthorizationHeader] = []
        for key in order {
            if let header = advance(key, method: method, uri: uri, body: body) { headers.append(header) }
        }
        return headers
    }

    /// Records that a request carrying the answers got a final response other than 401/407:
    /// the answers were accepted, so a later challenge is answered afresh.
    package mutating func requestWasAccepted() {
        for key in order {
            realms[key]?.awaitingVerdict = false
            realms[key]?.staleRetries = 0
        }
    }

    /// The nonce count of the last answer sent in `realm`; nil if the realm has no cached
    /// Digest challenge.
    package func lastNonceCount(realm: String?, origin: SIPAuthChallengeOrigin) -> UInt32? {
        guard let state = realms[RealmKey(origin: origin, realm: realm)],
            case .digest(_, let count, _) = state.answer
        else { return nil }
        return count
    }

    /// 32 lowercase hex digits from the system random generator.
    package static func randomCNonce() -> String {
        var generator = SecureRandomNumberGenerator()
        var text = ""
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return text
    }

    // MARK: - Private

    private func makeAnswer(_ challenge: SIPAuthChallenge) -> (answer: Answer, stale: Bool)? {
        switch challenge {
        case .digest(let digest):
            guard let creds = credentials.first(where: { $0.matches(realm: digest.realm) && !$0.username.isEmpty })
            else { return nil }
            return (.digest(digest, nonceCount: 1, credentials: creds), digest.stale)
        case .bearer(let bearer):
            guard
                let token = credentials.first(where: { $0.matches(realm: bearer.realm) && $0.bearerToken != nil })?
                    .bearerToken,
                Self.isToken68(token)
            else { return nil }
            return (.bearer(token: token), false)
        }
    }

    private static func prefer(_ candidate: Answer, over current: Answer) -> Bool {
        switch (candidate, current) {
        case (.bearer, .digest): return true
        case (.digest(let new, _, _), .digest(let old, _, _)):
            return new.algorithm.strength > old.algorithm.strength
        default: return false
        }
    }

    private mutating func advance(_ key: RealmKey, method: String, uri: String, body: [UInt8]) -> SIPAuthorizationHeader? {
        guard var state = realms[key] else { return nil }
        if case .digest(let challenge, let count, let creds) = state.answer {
            state.answer = .digest(challenge, nonceCount: count &+ 1, credentials: creds)
        }
        realms[key] = state
        return header(for: key, answer: state.answer, method: method, uri: uri, body: body)
    }

    private func header(
        for key: RealmKey, answer: Answer, method: String, uri: String, body: [UInt8]
    )
        -> SIPAuthorizationHeader
    {
        switch answer {
        case .digest(let challenge, let count, let creds):
            let digest = DigestAuthorization(
                answering: challenge, username: creds.username, password: creds.password, method: method,
                uri: uri, cnonce: makeCNonce(), nonceCount: count, body: body)
            return SIPAuthorizationHeader(origin: key.origin, realm: key.realm, value: digest.headerValue)
        case .bearer(let token):
            return SIPAuthorizationHeader(origin: key.origin, realm: key.realm, value: "Bearer \(token)")
        }
    }

    /// RFC 7235 token68: what a Bearer token may contain on the wire.
    private static func isToken68(_ token: String) -> Bool {
        var sawPadding = false
        for c in token.utf8 {
            if c == UInt8(ascii: "=") {
                sawPadding = true
                continue
            }
            guard !sawPadding else { return false }
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            default:
                guard "-._~+/".utf8.contains(c) else { return false }
            }
        }
        return !token.isEmpty && token.utf8.first != UInt8(ascii: "=")
    }
}
