/// The `o=` line: who created the session and which version of its description this is.
package struct SDPOrigin: Hashable, Sendable {
    /// The originator's login, or `-`.
    package var username: String
    /// A numeric session identifier, unique for the originator (kept as text: up to 20 digits).
    package var sessionID: String
    /// The description's version; bumped whenever the description changes (RFC 3264 §8).
    package var sessionVersion: UInt64
    /// Network type, `IN`.
    package var networkType: String
    /// Address type, `IP4` or `IP6`.
    package var addressType: String
    /// The originator's address or host name.
    package var address: String

    /// Creates an origin.
    package init(
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
    package var value: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}
