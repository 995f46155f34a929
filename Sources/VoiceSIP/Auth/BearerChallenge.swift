/// A parsed Bearer challenge (RFC 8898 §2.2.1 for SIP, RFC 6750 §3).
package struct BearerChallenge: Hashable, Sendable {
    /// The protection space, if the server named one.
    package var realm: String?
    /// The scope the token must cover, if named.
    package var scope: String?
    /// The authorization server's URI (RFC 8898 `authz_server`), if named.
    package var authorizationServer: String?
    /// The `error` the server reported for the last token (e.g. `invalid_token`), if any.
    package var error: String?

    /// Creates a challenge from its parts.
    package init(realm: String? = nil, scope: String? = nil, authorizationServer: String? = nil, error: String? = nil) {
        self.realm = realm
        self.scope = scope
        self.authorizationServer = authorizationServer
        self.error = error
    }

    init(parameters: [(name: String, value: String)]) {
        self.init()
        for (name, value) in parameters {
            switch name {
            case "realm": realm = value
            case "scope": scope = value
            case "authz_server": authorizationServer = value
            case "error": error = value
            default: continue
            }
        }
    }
}
