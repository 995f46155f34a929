/// The `o=` line: who created the session and which version of its description this is.
public struct SDPOrigin: Hashable, Sendable {
    /// The originator's login, or `-`.
    public var username: String
    /// A numeric session identifier, unique for the originator (kept as text: up to 20 digits).
    public var sessionID: String
    /// The description's version; bumped whenever the description changes (RFC 3264 §8).
    public var sessionVersion: UInt64
    /// Network type, `IN`.
    public var networkType: String
    /// Address type, `IP4` or `IP6`.
    public var addressType: String
    /// The originator's address or host name.
    public var address: String

    /// Creates an origin.
    public init(
        username: String = "-", sessionID: String, sessionVersion: UInt64,
        networkType: String = "IN", addressType: String = "IP4", address: String
    ) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// The line value, as after `o=`.
    public var value: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}
