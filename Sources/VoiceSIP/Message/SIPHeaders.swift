/// The header fields of a SIP message: an ordered multi-map with case-insensitive names.
///
/// Compact forms (RFC 3261 §7.3.3 and extensions: i m f t v l c k s e o u r b x y) are
/// equivalent to their long names for lookup; fields keep the name spelling they were added with.
package struct SIPHeaders: Sendable, Equatable, Sequence {
    /// One header field line (after unfolding).
    package struct Field: Sendable, Equatable {
        /// The name as received or added.
        package let name: String
        /// ``SIPHeaders/canonicalName(_:)`` of the name, worked out once: lookups compare it
        /// instead of lowercasing every field's name each time.
        package let key: String
        /// The value with surrounding whitespace removed and folding replaced by a space.
        package var value: String
        /// Creates a field.
        package init(name: String, value: String) {
            self.name = name
            self.key = SIPHeaders.canonicalName(name)
            self.value = value
        }
    }

    /// The fields in order.
    package private(set) var fields: [Field] = []

    /// Creates an empty header set.
    package init() {}

    /// Creates a header set from name/value pairs in order.
    package init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The number of field lines.
    package var count: Int { fields.count }

    /// The lowercased long name for `name`, expanding compact forms.
    package static func canonicalName(_ name: String) -> String {
        // Most names are already lowercase ASCII in what we build, and mixed-case ASCII in
        // what arrives: lowercase ASCII by hand, leave others to the standard library.
        let lower = name.utf8.allSatisfy({ $0 < 0x80 }) ? Self.asciiLowercased(name) : name.lowercased()
        switch lower {
        case "i": return "call-id"
        case "m": return "contact"
        case "f": return "from"
        case "t": return "to"
        case "v": return "via"
        case "l": return "content-length"
        case "c": return "content-type"
        case "k": return "supported"
        case "s": return "subject"
        case "e": return "content-encoding"
        case "o": return "event"
        case "u": return "allow-events"
        case "r": return "refer-to"
        case "b": return "referred-by"
        case "x": return "session-expires"
        case "y": return "identity"
        default: return lower
        }
    }

    private static func asciiLowercased(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return name }
        return String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Appends a field.
    package mutating func add(_ name: String, _ value: String) { fields.append(Field(name: name, value: value)) }

    /// Replaces every field named `name` with a single one, placed where the first was (or appended).
    package mutating func set(_ name: String, _ value: String) {
        let key = SIPHeaders.canonicalName(name)
        if let i = fields.firstIndex(where: { $0.key == key }) {
            fields[i] = Field(name: name, value: value)
            var j = fields.count - 1
            while j > i {
                if fields[j].key == key { fields.remove(at: j) }
                j -= 1
            }
        } else {
            add(name, value)
        }
    }

    /// Removes every field named `name`.
    package mutating func remove(_ name: String) {
        let key = SIPHeaders.canonicalName(name)
        fields.removeAll { $0.key == key }
    }

    /// The raw values of every field line named `name`, in order.
    package subscript(name: String) -> [String] {
        let key = SIPHeaders.canonicalName(name)
        return fields.filter { $0.key == key }.map(\.value)
    }

    /// The first raw value for `name`.
    package func first(_ name: String) -> String? {
        let key = SIPHeaders.canonicalName(name)
        return fields.first { $0.key == key }?.value
    }

    /// Whether any field is named `name`.
    package func contains(_ name: String) -> Bool {
        let key = SIPHeaders.canonicalName(name)
        return fields.contains { $0.key == key }
    }

    /// The comma-separated elements of every field named `name`, split outside quotes and `<>`.
    package func values(_ name: String) throws(SIPParseError) -> [String] {
        var out: [String] = []
        for v in self[name] { out += try SIPHeaders.splitList(v) }
        return out
    }

    /// Splits a header value on commas that are not inside a quoted string or angle brackets.
    /// Empty elements are an error.
    package static func splitList(_ value: String) throws(SIPParseError) -> [String] {
        var reader = SIPTextReader(value)
        var items: [String] = []
        var start = 0
        var inAngle = false
        while let c = reader.peek() {
            switch c {
            case 0x22:
                _ = try reader.readQuotedString()
                continue
            case 0x3C: inAngle = true
            case 0x3E: inAngle = false
            case 0x2C where !inAngle:
                items.append(String(decoding: SIPGrammar.trim(reader.bytes[start..<reader.position]), as: UTF8.self))
                start = reader.position + 1
            default: break
            }
            _ = reader.read()
        }
        items.append(String(decoding: SIPGrammar.trim(reader.bytes[start..<reader.position]), as: UTF8.self))
        guard !items.contains(where: \.isEmpty) else { throw SIPParseError(.invalidHeaderValue, "empty list element") }
        guard items.count <= 128 else { throw SIPParseError(.tooLarge, "too many list elements") }
        return items
    }
}
