/// A JSON-like value carried in an ``InsightsEvent`` payload.
package enum InsightsValue: Hashable, Sendable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// An ordered list of values.
    case array([InsightsValue])
    /// A keyed object.
    case object([String: InsightsValue])
    /// An explicit absence of value (JSON `null`).
    case null

    /// A compact JSON rendering: strings quoted and escaped, object keys sorted, non-finite numbers as `null`.
    package var description: String {
        switch self {
        case .string(let s): return InsightsValue.quoted(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .array(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let fields):
            let body = fields.keys.sorted().map { key in
                InsightsValue.quoted(key) + ":" + (fields[key] ?? .null).description
            }
            return "{" + body.joined(separator: ",") + "}"
        case .null: return "null"
        }
    }

    /// The string, when this is a `.string`.
    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, when this is an `.int` or a `.double`.
    package var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    private static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension InsightsValue: ExpressibleByStringLiteral {
    /// A `.string` from a literal.
    package init(stringLiteral value: String) { self = .string(value) }
}

extension InsightsValue: ExpressibleByIntegerLiteral {
    /// An `.int` from a literal.
    package init(integerLiteral value: Int) { self = .int(value) }
}

extension InsightsValue: ExpressibleByFloatLiteral {
    /// A `.double` from a literal.
    package init(floatLiteral value: Double) { self = .double(value) }
}

extension InsightsValue: ExpressibleByBooleanLiteral {
    /// A `.bool` from a literal.
    package init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension InsightsValue: ExpressibleByArrayLiteral {
    /// An `.array` from a literal.
    package init(arrayLiteral elements: InsightsValue...) { self = .array(elements) }
}

extension InsightsValue: ExpressibleByDictionaryLiteral {
    /// An `.object` from a literal; a repeated key keeps its last value.
    package init(dictionaryLiteral elements: (String, InsightsValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
