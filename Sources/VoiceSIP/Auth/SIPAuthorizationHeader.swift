/// One Authorization or Proxy-Authorization header to add to a request.
public struct SIPAuthorizationHeader: Hashable, Sendable {
    /// Whose challenge this answers, which names the header.
    public var origin: SIPAuthChallengeOrigin
    /// The realm answered (nil for a Bearer challenge that named none).
    public var realm: String?
    /// The header value, e.g. `Digest username="alice", …` or `Bearer eyJ…`.
    public var value: String

    /// Creates a header.
    public init(origin: SIPAuthChallengeOrigin, realm: String?, value: String) {
        self.origin = origin
        self.realm = realm
        self.value = value
    }

    /// `Authorization` or `Proxy-Authorization`.
    public var name: String { origin.authorizationHeaderName }
}
