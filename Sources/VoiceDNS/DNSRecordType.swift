/// A DNS resource record type (RFC 1035 §3.2.2), as the number on the wire.
package struct DNSRecordType: Hashable, Sendable, CustomStringConvertible {
    /// The TYPE value.
    package let rawValue: UInt16

    /// The type numbered `rawValue`.
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    /// An IPv4 address (RFC 1035).
    package static let a = DNSRecordType(rawValue: 1)
    /// An alias (RFC 1035).
    package static let cname = DNSRecordType(rawValue: 5)
    /// A zone's start of authority, whose minimum bounds negative caching (RFC 2308).
    package static let soa = DNSRecordType(rawValue: 6)
    /// An IPv6 address (RFC 3596).
    package static let aaaa = DNSRecordType(rawValue: 28)
    /// A service location (RFC 2782).
    package static let srv = DNSRecordType(rawValue: 33)
    /// A naming authority pointer (RFC 3403).
    package static let naptr = DNSRecordType(rawValue: 35)
    /// Every record the name has (QTYPE 255, RFC 1035 §3.2.3): what an mDNS query for a
    /// browser's `.local` name asks, so that either family answers at once.
    package static let any = DNSRecordType(rawValue: 255)

    package var description: String {
        switch self {
        case .a: "A"
        case .cname: "CNAME"
        case .soa: "SOA"
        case .aaaa: "AAAA"
        case .srv: "SRV"
        case .naptr: "NAPTR"
        case .any: "ANY"
        default: "TYPE\(rawValue)"
        }
    }
}

/// What a lookup asks: a name and a record type.
package struct DNSQuestion: Hashable, Sendable, CustomStringConvertible {
    /// The name, lower-cased, without a trailing dot (`_sip._udp.example.com`).
    package let name: String
    /// The record type.
    package let type: DNSRecordType

    /// A question for `name` (case and a trailing dot do not matter) and `type`.
    package init(_ name: String, _ type: DNSRecordType) {
        self.name = DNSName.normalized(name)
        self.type = type
    }

    package var description: String { "\(name) \(type)" }
}

/// Domain names as this module compares them.
package enum DNSName {
    /// `name` lower-cased (ASCII, as RFC 4343 compares names) and without a trailing dot.
    package static func normalized(_ name: String) -> String {
        var text = name.lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
