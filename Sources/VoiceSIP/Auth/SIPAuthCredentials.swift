/// What a user agent proves itself with: a Digest username and password, a Bearer token, or
/// both. Scoped to one realm, or to any realm when ``realm`` is nil.
public struct SIPAuthCredentials: Hashable, Sendable {
    /// The realm these credentials answer; nil answers every realm.
    public var realm: String?
    /// The Digest username.
    public var username: String
    /// The Digest password.
    public var password: String
    /// An OAuth access token for Bearer challenges (RFC 8898), if any.
    public var bearerToken: String?

    /// Creates Digest credentials, optionally with a Bearer token.
    public init(username: String, password: String, realm: String? = nil, bearerToken: String? = nil) {
        self.username = username
        self.password = password
        self.realm = realm
        self.bearerToken = bearerToken
    }

    /// Creates Bearer-only credentials.
    public init(bearerToken: String, realm: String? = nil) {
        self.init(username: "", password: "", realm: realm, bearerToken: bearerToken)
    }

    /// True when these credentials may answer `realm`.
    func matches(realm challenged: String?) -> Bool {
        guard let realm else { return true }
        return realm == challenged
    }
}

extension SIPAuthCredentials: CustomStringConvertible {
    /// Names the user and realm; never shows the password or token.
    public var description: String {
        "SIPAuthCredentials(username: \(username), realm: \(realm ?? "*"))"
    }
}
