/// Writing a message: what test servers answer with and what round-trip tests compare.
extension DNSMessage {
    /// The message as bytes, names uncompressed (RFC 1035 §4.1). A name or text longer than
    /// the wire allows is cut to fit; the parser rejects what it then reads, which is what a
    /// test of hostile answers wants.
    package func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func u32(_ value: UInt32) { u16(UInt16(value >> 16)); u16(UInt16(value & 0xFFFF)) }
        var flags: UInt16 = UInt16(responseCode & 0x0F)
        if isResponse { flags |= 0x8000 }
        if isTruncated { flags |= 0x0200 }
        flags |= 0x0100 | 0x0080  // RD, RA
        u16(id)
        u16(flags)
        u16(1)
        u16(UInt16(clamping: answers.count))
        u16(UInt16(clamping: authorities.count))
        u16(UInt16(clamping: additionals.count))
        bytes += Self.name(question.name)
        u16(question.type.rawValue)
        u16(1)
        for record in answers + authorities + additionals {
            bytes += Self.name(record.name)
            u16(record.type.rawValue)
            u16(1)
            u32(record.ttl)
            let data = Self.data(record.data)
            u16(UInt16(clamping: data.count))
            bytes += data
        }
        return bytes
    }

    /// `name` as labels, uncompressed.
    package static func name(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for label in name.split(separator: ".") {
            let utf8 = Array(label.utf8.prefix(63))
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        return bytes + [0]
    }

    private static func data(_ data: DNSRecordData) -> [UInt8] {
        var bytes: [UInt8] = []
        func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func text(_ value: String) {
            let utf8 = Array(value.utf8.prefix(255))
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        switch data {
        case .address(let ip):
            bytes = ip.bytes
        case .cname(let target):
            bytes = name(target)
        case .srv(let srv):
            u16(srv.priority)
            u16(srv.weight)
            u16(srv.port)
            bytes += name(srv.target)
        case .naptr(let pointer):
            u16(pointer.order)
            u16(pointer.preference)
            text(pointer.flags)
            text(pointer.service)
            text(pointer.regexp)
            bytes += name(pointer.replacement)
        case .soa(let minimum):
            bytes = name("ns") + name("hostmaster")
            for value in [UInt32(1), 3_600, 600, 86_400, minimum] {
                u16(UInt16(value >> 16))
                u16(UInt16(value & 0xFFFF))
            }
        case .other:
            break
        }
        return bytes
    }
}
