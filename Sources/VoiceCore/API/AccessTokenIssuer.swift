import Crypto
import Foundation

/// Makes HS256-signed access tokens in Twilio's format (`cty: twilio-fpa;v=1`, a `grants`
/// claim with `identity` and `voice`), for servers that hand tokens to clients, for tests, and
/// for the demo. The SDK itself only checks a token's shape and lifetime; the server verifies
/// the signature.
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

    /// A token for `identity`, valid from `now` for `lifetime` seconds (at most 24 h).
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
