import Crypto
import Foundation

/// Makes HS256-signed access tokens in Twilio's format (`cty: twilio-fpa;v=1`, a `grants`
/// claim with `identity` and `voice`), for a server that hands tokens to its clients (and for
/// tests). It holds an API key's secret, so it belongs on the server, never in a client app:
/// the client (VoiceCore) only checks a token's shape and lifetime and presents it as a Bearer
/// credential; the server verifies the signature. Servers that do not use tokens (plain SIP
/// with digest credentials) need none of this.
///
/// ```swift
/// let issuer = AccessTokenIssuer(accountSid: accountSid, apiKeySid: keySid, apiKeySecret: keySecret)
/// let token = issuer.makeToken(identity: "alice", lifetime: 3600)   // hand it to alice's app
/// ```
public struct AccessTokenIssuer: Sendable {
    /// The account the token is for (`sub`).
    public var accountSid: String
    /// The API key that signs it (`iss`).
    public var apiKeySid: String
    /// The API key's secret (the HMAC key).
    public var apiKeySecret: String

    /// Creates an issuer.
    public init(accountSid: String, apiKeySid: String, apiKeySecret: String) {
        self.accountSid = accountSid
        self.apiKeySid = apiKeySid
        self.apiKeySecret = apiKeySecret
    }

    /// A token for `identity`, valid from `now` for `lifetime` seconds (clamped to 1 s … 24 h).
    /// - Parameters:
    ///   - identity: The client's identity (`grants.identity`).
    ///   - lifetime: Seconds from `now` to the expiry (`exp`).
    ///   - now: The issue time (`iat`, `nbf`).
    ///   - outgoingApplicationSid: The application outgoing calls go to (`grants.voice.outgoing`), if any.
    public func makeToken(
        identity: String, lifetime: TimeInterval = 3600, now: Date = Date(), outgoingApplicationSid: String? = nil
    ) -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        let expires = issuedAt + Int(min(max(1, lifetime), 24 * 3600))
        var voice: [String: Any] = ["incoming": ["allow": true]]
        if let outgoingApplicationSid { voice["outgoing"] = ["application_sid": outgoingApplicationSid] }
        let header: [String: Any] = ["typ": "JWT", "alg": "HS256", "cty": "twilio-fpa;v=1"]
        let payload: [String: Any] = [
            "jti": "\(apiKeySid)-\(issuedAt)", "iss": apiKeySid, "sub": accountSid, "iat": issuedAt, "nbf": issuedAt,
            "exp": expires, "grants": ["identity": identity, "voice": voice],
        ]
        let signingInput = Self.segment(header) + "." + Self.segment(payload)
        let key = SymmetricKey(data: Data(apiKeySecret.utf8))
        let signature = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return signingInput + "." + Self.base64URL(Data(signature))
    }

    private static func segment(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return base64URL(data)
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
