/// An ordered list of `;name[=value]` parameters with case-insensitive name lookup.
///
/// Used for URI parameters and header parameters. Names keep the case they were received in;
/// values are stored as received (a quoted-string value keeps its quotes).
package struct SIPParameters: Sendable, Equatable, Sequence {
    /// One parameter; `value` is nil for a parameter without `=`.
    package struct Parameter: Sendable, Equatable {
        /// The parameter name as received.
        package var name: String
        /// The value, or nil when the parameter has no value.
        package var value: String?
        /// Creates a parameter.
        package init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// The parameters in order.
    package private(set) var list: [Parameter] = []

    /// Creates an empty parameter list.
    package init() {}

    /// Creates a parameter list from name/value pairs.
    package init(_ pairs: [(String, String?)]) {
        list = pairs.map { Parameter(name: $0.0, value: $0.1) }
    }

    /// The number of parameters.
    package var count: Int { list.count }
    /// True when there are no parameters.
    package var isEmpty: Bool { list.isEmpty }

    package func makeIterator() -> IndexingIterator<[Parameter]> { list.makeIterator() }

    /// Whether a parameter named `name` (case-insensitive) is present.
    package func contains(_ name: String) -> Bool { index(of: name) != nil }

    /// The value of the first parameter named `name`: nil if absent, `.some(nil)` if present without value.
    package subscript(name: String) -> String?? {
        guard let i = index(of: name) else { return nil }
        return .some(list[i].value)
    }

    /// The value of `name` if present with a value.
    package func value(_ name: String) -> String? { self[name] ?? nil }

    /// Sets `name` to `value`, replacing an existing parameter of that name or appending one.
    package mutating func set(_ name: String, _ value: String?) {
        if let i = index(of: name) {
            list[i].value = value
        } else {
            list.append(Parameter(name: name, value: value))
        }
    }

    /// Removes every parameter named `name`.
    package mutating func remove(_ name: String) {
        list.removeAll { $0.name.lowercased() == name.lowercased() }
    }

    func index(of name: String) -> Int? {
        let key = name.lowercased()
        return list.firstIndex { $0.name.lowercased() == key }
    }

    /// Parses header parameters `*( SEMI generic-param )` from `reader` (RFC 3261 §25.1).
    static func parseHeaderParameters(_ reader: inout SIPTextReader) throws(SIPParseError) -> SIPParameters {
        var params = SIPParameters()
        while true {
            reader.skipWhitespace()
            guard reader.consume(0x3B) else { break }
            reader.skipWhitespace()
            let name = reader.read(while: SIPGrammar.isToken)
            guard !name.isEmpty else { throw SIPParseError(.invalidHeaderValue, "empty parameter name") }
            guard params.count < 64 else { throw SIPParseError(.tooLarge, "too many parameters") }
            reader.skipWhitespace()
            var value: String?
            if reader.consume(0x3D) {
                reader.skipWhitespace()
                if reader.peek() == 0x22 {
                    let start = reader.position
                    _ = try reader.readQuotedString()
                    value = String(decoding: reader.bytes[start..<reader.position], as: UTF8.self)
                } else {
                    let v = reader.read(while: { SIPGrammar.isToken($0) || $0 == 0x3A || $0 == 0x5B || $0 == 0x5D })
                    guard !v.isEmpty else { throw SIPParseError(.invalidHeaderValue, "empty value for parameter") }
                    value = String(decoding: v, as: UTF8.self)
                }
            }
            params.list.append(Parameter(name: String(decoding: name, as: UTF8.self), value: value))
        }
        return params
    }

    /// Serializes as `;name=value` pairs.
    package var headerString: String {
        list.map { p in p.value.map { ";\(p.name)=\($0)" } ?? ";\(p.name)" }.joined()
    }
}
