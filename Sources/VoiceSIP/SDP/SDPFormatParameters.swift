/// An `a=fmtp` value: `<format> <parameters>`, with `;`-separated `key=value` parameters.
package struct SDPFormatParameters: Hashable, Sendable {
    /// The format (payload type) the parameters apply to.
    package var format: String
    /// The parameter text as written, e.g. `minptime=10;useinbandfec=1`.
    package var parameters: String

    /// Creates an fmtp value.
    package init(format: String, parameters: String) {
        self.format = format
        self.parameters = parameters
    }

    /// Creates an fmtp value from ordered key/value pairs, joined with `;`.
    package init(format: String, pairs: [(String, String)]) {
        self.init(format: format, parameters: pairs.map { "\($0.0)=\($0.1)" }.joined(separator: ";"))
    }

    /// Parses the text after `a=fmtp:`; nil without a format and a space.
    package init?(parsing text: Substring) {
        var reader = SDPTextReader(text)
        let format = reader.readToken()
        guard !format.isEmpty, reader.consumeSpace() else { return nil }
        self.init(format: String(format), parameters: String(reader.readRest()))
    }

    /// The attribute value, as after `a=fmtp:`.
    package var value: String { "\(format) \(parameters)" }

    /// The value of parameter `key` (case-insensitive, surrounding spaces trimmed), if present.
    package subscript(key: String) -> String? {
        let wanted = key.lowercased()
        for pair in parameters.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            if parts[0].trimmingSpaces.lowercased() == wanted { return String(parts[1].trimmingSpaces) }
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
