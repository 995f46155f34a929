/// An `a=rtcp` value (RFC 3605): `<port>[ <nettype> <addrtype> <address>]`.
package struct SDPRTCPAttribute: Hashable, Sendable {
    /// The RTCP port.
    package var port: UInt16
    /// The RTCP address, if it differs from the media's connection address.
    package var connection: SDPConnection?

    /// Creates an rtcp value.
    package init(port: UInt16, connection: SDPConnection? = nil) {
        self.port = port
        self.connection = connection
    }

    /// Parses the text after `a=rtcp:`; nil if malformed.
    package init?(parsing text: Substring) {
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
    package var value: String { String(port) + (connection.map { " \($0.value)" } ?? "") }
}
