/// One computed Digest answer: the fields of an Authorization / Proxy-Authorization value
/// (RFC 2617 §3.2.2, RFC 7616 §3.4, RFC 3261 §22.4).
package struct DigestAuthorization: Hashable, Sendable {
    /// The username sent (hashed when the challenge asked for `userhash`).
    package var username: String
    /// The realm, echoed from the challenge.
    package var realm: String
    /// The nonce, echoed from the challenge.
    package var nonce: String
    /// The Request-URI of the request being authorized.
    package var uri: String
    /// The computed request digest, lowercase hex.
    package var response: String
    /// The algorithm used.
    package var algorithm: DigestAlgorithm
    /// The client nonce; nil when no qop is used.
    package var cnonce: String?
    /// Opaque, echoed from the challenge.
    package var opaque: String?
    /// The qop used; nil for an RFC 2069 style answer.
    package var qop: DigestQOP?
    /// How many requests have used this nonce, this one included (sent as 8 hex digits).
    package var nonceCount: UInt32?
    /// True when ``username`` is hashed.
    package var userhash: Bool

    /// Computes the answer to `challenge`.
    ///
    /// - Parameters:
    ///   - challenge: the Digest challenge being answered.
    ///   - username: the user's name.
    ///   - password: the user's password.
    ///   - method: the request method (`REGISTER`, `INVITE`...); for ACK and CANCEL use
    ///     `INVITE`'s answer as RFC 3261 §22.4 asks.
    ///   - uri: the Request-URI.
    ///   - cnonce: the client nonce (used when the challenge offers a qop).
    ///   - nonceCount: the count for this nonce, starting at 1.
    ///   - body: the message body, hashed only for `auth-int`.
    package init(
        answering challenge: DigestChallenge, username: String, password: String, method: String,
        uri: String, cnonce: String, nonceCount: UInt32, body: [UInt8] = []
    ) {
        let alg = challenge.algorithm
        let qop = challenge.selectedQOP
        var ha1 = alg.hexDigest("\(username):\(challenge.realm):\(password)")
        if alg.isSession {
            ha1 = alg.hexDigest("\(ha1):\(challenge.nonce):\(cnonce)")
        }
        let ha2 =
            qop == .authInt
            ? alg.hexDigest("\(method):\(uri):\(alg.hexDigest(bytes: body))")
            : alg.hexDigest("\(method):\(uri)")
        let response: String
        if let qop {
            let nc = Self.hex8(nonceCount)
            response = alg.hexDigest("\(ha1):\(challenge.nonce):\(nc):\(cnonce):\(qop.rawValue):\(ha2)")
        } else {
            response = alg.hexDigest("\(ha1):\(challenge.nonce):\(ha2)")
        }
        self.username = challenge.userhash ? alg.hexDigest("\(username):\(challenge.realm)") : username
        self.realm = challenge.realm
        self.nonce = challenge.nonce
        self.uri = uri
        self.response = response
        self.algorithm = alg
        self.cnonce = qop == nil ? nil : cnonce
        self.opaque = challenge.opaque
        self.qop = qop
        self.nonceCount = qop == nil ? nil : nonceCount
        self.userhash = challenge.userhash
    }

    /// The header value: `Digest username="…", realm="…", nonce="…", uri="…", response="…",
    /// algorithm=…, cnonce="…", opaque="…", qop=…, nc=…` (qop and nc unquoted, as RFC 3261
    /// §25.1 requires).
    package var headerValue: String {
        var parts = [
            "username=\(Self.quoted(username))",
            "realm=\(Self.quoted(realm))",
            "nonce=\(Self.quoted(nonce))",
            "uri=\(Self.quoted(uri))",
            "response=\(Self.quoted(response))",
            "algorithm=\(algorithm.rawValue)",
        ]
        if let cnonce { parts.append("cnonce=\(Self.quoted(cnonce))") }
        if let opaque { parts.append("opaque=\(Self.quoted(opaque))") }
        if let qop { parts.append("qop=\(qop.rawValue)") }
        if let nonceCount { parts.append("nc=\(Self.hex8(nonceCount))") }
        if userhash { parts.append("userhash=true") }
        return "Digest " + parts.joined(separator: ", ")
    }

    /// `value` as a quoted-string, escaping `"` and `\`.
    static func quoted(_ value: String) -> String {
        var out = "\""
        for ch in value {
            if ch == "\"" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        out.append("\"")
        return out
    }

    /// `n` as exactly 8 lowercase hex digits.
    static func hex8(_ n: UInt32) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
