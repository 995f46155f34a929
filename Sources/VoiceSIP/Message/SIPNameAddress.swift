/// A `name-addr` or `addr-spec` with header parameters: the value of From, To, Contact, Route,
/// Record-Route (RFC 3261 §20.10).
package struct SIPNameAddress: Sendable, Equatable, CustomStringConvertible {
    /// The display name, unquoted and unescaped; nil when absent.
    package var displayName: String?
    /// The address.
    package var uri: SIPURI
    /// The header parameters after the address (e.g. `tag`, `expires`, `q`).
    package var parameters: SIPParameters
    /// True when the address was written in `<>`; serialization always uses `<>`.
    package var usedAngleBrackets: Bool

    /// Creates an address.
    package init(displayName: String? = nil, uri: SIPURI, parameters: SIPParameters = SIPParameters()) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
        self.usedAngleBrackets = true
    }

    /// Parses one address (not a comma-separated list).
    package init(parsing text: String) throws(SIPParseError) {
        var reader = SIPTextReader(text)
        self = try SIPNameAddress.parse(&reader)
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw SIPParseError(.invalidHeaderValue, "unexpected text after address") }
    }

    /// The `tag` parameter.
    package var tag: String? {
        get { parameters.value("tag") }
        set { if let newValue { parameters.set("tag", newValue) } else { parameters.remove("tag") } }
    }

    package var description: String {
        var s = ""
        if let displayName, !displayName.isEmpty { s += SIPGrammar.quote(displayName) + " " }
        s += "<\(uri)>" + parameters.headerString
        return s
    }

    static func parse(_ reader: inout SIPTextReader) throws(SIPParseError) -> SIPNameAddress {
        reader.skipWhitespace()
        var displayName: String?
        if reader.peek() == 0x22 {
            displayName = try reader.readQuotedString()
            reader.skipWhitespace()
            guard reader.peek() == 0x3C else { throw SIPParseError(.invalidHeaderValue, "display name without <address>") }
        } else if reader.bytes[reader.position...].contains(0x3C) {
            // Unquoted display name: tokens separated by whitespace, up to '<'.
            let words = reader.read(upTo: 0x3C)
            let trimmed = SIPGrammar.trim(words)
            guard trimmed.allSatisfy({ SIPGrammar.isToken($0) || SIPGrammar.isWhitespace($0) }) else {
                throw SIPParseError(.invalidHeaderValue, "display name is neither a quoted string nor tokens")
            }
            if !trimmed.isEmpty {
                let parts = trimmed.split(whereSeparator: SIPGrammar.isWhitespace)
                displayName = parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
            }
        }
        var address: SIPNameAddress
        if reader.consume(0x3C) {
            let uriBytes = reader.read(upTo: 0x3E)
            guard reader.consume(0x3E) else { throw SIPParseError(.invalidHeaderValue, "missing '>'") }
            address = SIPNameAddress(displayName: displayName, uri: try SIPURI.parse(uriBytes))
        } else {
            // addr-spec: the URI may not hold ';', '?' or ',' and ends at whitespace or ';'.
            let uriBytes = reader.read(while: { $0 != 0x3B && !SIPGrammar.isWhitespace($0) })
            guard !uriBytes.isEmpty else { throw SIPParseError(.invalidHeaderValue, "missing address") }
            guard !uriBytes.contains(0x3F), !uriBytes.contains(0x2C) else {
                throw SIPParseError(.invalidHeaderValue, "an address with '?' or ',' must be in <>")
            }
            address = SIPNameAddress(uri: try SIPURI.parse(uriBytes))
            address.usedAngleBrackets = false
        }
        address.parameters = try SIPParameters.parseHeaderParameters(&reader)
        return address
    }
}
