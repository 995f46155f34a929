import VoiceAddress

/// One resource record of an answer: its owner name, how long it may be cached, and its data.
package struct DNSResourceRecord: Hashable, Sendable {
    /// The owner name, lower-cased, without a trailing dot.
    package var name: String
    /// Seconds the record may be cached.
    package var ttl: UInt32
    /// The record's data.
    package var data: DNSRecordData

    package init(name: String, ttl: UInt32, data: DNSRecordData) {
        self.name = DNSName.normalized(name)
        self.ttl = ttl
        self.data = data
    }

    /// The record's type.
    package var type: DNSRecordType { data.type }
}

/// The data of a record of a type this module reads; others are kept by type only.
package enum DNSRecordData: Hashable, Sendable {
    /// An IPv4 (A) or IPv6 (AAAA) address.
    case address(IPAddress)
    /// An alias to another name.
    case cname(String)
    /// A service location (RFC 2782).
    case srv(DNSServiceRecord)
    /// A naming authority pointer (RFC 3403).
    case naptr(DNSNamingPointer)
    /// A zone's start of authority: the SOA MINIMUM, which with the record's TTL bounds how
    /// long a negative answer is cached (RFC 2308 §5).
    case soa(minimum: UInt32)
    /// A record of a type not read here.
    case other(DNSRecordType)

    /// The record type the data is of.
    package var type: DNSRecordType {
        switch self {
        case .address(let ip): ip.bytes.count == 4 ? .a : .aaaa
        case .cname: .cname
        case .srv: .srv
        case .naptr: .naptr
        case .soa: .soa
        case .other(let type): type
        }
    }
}

/// An SRV record's data (RFC 2782).
package struct DNSServiceRecord: Hashable, Sendable {
    /// Lower is tried first.
    package var priority: UInt16
    /// Among records of one priority, the share of selections.
    package var weight: UInt16
    /// The port the service listens on.
    package var port: UInt16
    /// The host, lower-cased, without a trailing dot; empty for the root (`.`), which says the
    /// service is decidedly not offered.
    package var target: String

    package init(priority: UInt16, weight: UInt16, port: UInt16, target: String) {
        self.priority = priority
        self.weight = weight
        self.port = port
        self.target = DNSName.normalized(target)
    }
}

/// A NAPTR record's data (RFC 3403).
package struct DNSNamingPointer: Hashable, Sendable {
    /// Lower is used first.
    package var order: UInt16
    /// Among records of one order, lower is preferred.
    package var preference: UInt16
    /// Flags (`s`: the replacement is an SRV name).
    package var flags: String
    /// The service (`SIP+D2U`, `SIPS+D2T`).
    package var service: String
    /// A substitution expression (empty for SIP, which uses the replacement).
    package var regexp: String
    /// The next name to look up, lower-cased, without a trailing dot; empty for the root.
    package var replacement: String

    package init(order: UInt16, preference: UInt16, flags: String, service: String, regexp: String, replacement: String) {
        self.order = order
        self.preference = preference
        self.flags = flags
        self.service = service
        self.regexp = regexp
        self.replacement = DNSName.normalized(replacement)
    }
}
