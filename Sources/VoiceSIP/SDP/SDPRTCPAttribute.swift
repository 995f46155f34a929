/// An `a=rtcp` value (RFC 3605): `<port>[ <nettype> <addrtype> <address>]`.
public struct SDPRTCPAttribute: Hashable, Sendable {
    /// The RTCP port.
    public var port: UInt16
    /// The RTCP address, if it differs from the media's connection address.
    public var connection: SDPConnection?

    /// Creates an rtcp value.
    public init(port: UInt16, connection: SDPConnection? = nil) {
        self.port = port
        self.connection = connection
    }

    /// Parses the text after `a=rtcp:`; nil if malformed.
    public init?(parsing text: Substring) {
        var reader = SDPTextReader(text)
        guard let port = reader.readDecimal(maxDigits: 5), port <= 65535 else { return nil }
        var connection: SDPConnection?
        if reader.consumeSpace() {
            guard let parsed = SDPConnection(parsing: reader.readRest()) else { return nil }
            connection = parsed
        }
        guard reader.isAtEnd else { return nil }
        self.init(port: UInt16(port), connection: connection)
    }

    /// The attribute value, as after `a=rtcp:`.
    public var value: String { String(port) + (connection.map { " \($0.value)" } ?? "") }
}

extension SDPConnection {
    /// Parses `<nettype> <addrtype> <address>[/suffix]`; nil if malformed.
    public init?(parsing text: Substring) {
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
