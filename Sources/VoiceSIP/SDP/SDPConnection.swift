/// A `c=` line: where media goes.
package struct SDPConnection: Hashable, Sendable {
    /// Network type, `IN`.
    package var networkType: String
    /// Address type, `IP4` or `IP6`.
    package var addressType: String
    /// The connection address (host name or literal), without any `/ttl/count` suffix.
    package var address: String
    /// The `/ttl` (IPv4 multicast) or `/count` suffix, verbatim after the first `/`, if any.
    package var suffix: String?

    /// Creates a connection line value.
    package init(networkType: String = "IN", addressType: String = "IP4", address: String, suffix: String? = nil) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
        self.suffix = suffix
    }

    /// The line value, as after `c=`.
    package var value: String {
        "\(networkType) \(addressType) \(address)" + (suffix.map { "/\($0)" } ?? "")
    }
}

extension SDPConnection {
    /// Parses `<nettype> <addrtype> <address>[/suffix]`; nil if malformed.
    package init?(parsing text: Substring) {
        var reader = SDPTextReader(text)
        let net = reader.readToken()
        guard !net.isEmpty, reader.consumeSpace() else { return nil }
        let type = reader.readToken()
        guard !type.isEmpty, reader.consumeSpace() else { return nil }
        let full = reader.readToken()
        guard !full.isEmpty, reader.isAtEnd else { return nil }
        var addressReader = SDPTextReader(full)
        var suffix: String?
        var address = full
        if let host = addressReader.readUntil(UInt8(ascii: "/")) {
            address = host
            suffix = String(addressReader.readRest())
            guard !host.isEmpty, suffix?.isEmpty == false else { return nil }
        }
        self.init(networkType: String(net), addressType: String(type), address: String(address), suffix: suffix)
    }
}
