/// A `c=` line: where media goes.
public struct SDPConnection: Hashable, Sendable {
    /// Network type, `IN`.
    public var networkType: String
    /// Address type, `IP4` or `IP6`.
    public var addressType: String
    /// The connection address (host name or literal), without any `/ttl/count` suffix.
    public var address: String
    /// The `/ttl` (IPv4 multicast) or `/count` suffix, verbatim after the first `/`, if any.
    public var suffix: String?

    /// Creates a connection line value.
    public init(networkType: String = "IN", addressType: String = "IP4", address: String, suffix: String? = nil) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
        self.suffix = suffix
    }

    /// The line value, as after `c=`.
    public var value: String {
        "\(networkType) \(addressType) \(address)" + (suffix.map { "/\($0)" } ?? "")
    }
}
