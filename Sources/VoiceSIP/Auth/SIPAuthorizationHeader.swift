/// One Authorization or Proxy-Authorization header to add to a request.
package struct SIPAuthorizationHeader: Hashable, Sendable {
    /// Whose challenge this answers, which names the header.
    package var origin: SIPAuthChallengeOrigin
    /// The realm answered (nil for a Bearer challenge that named none).
    package var realm: String?
    /// The header value, e.g. `Digest username="alice", …` or `Bearer eyJ…`.
    package var value: String

    /// Creates a header.
    package init(origin: SIPAuthChallengeOrigin, realm: String?, value: String) {
        self.origin = origin
        self.realm = realm
        self.value = value
    }

    /// `Authorization` or `Proxy-Authorization`.
    package var name: String { origin.authorizationHeaderName }
}
