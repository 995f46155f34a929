import VoiceAddress
import VoiceBytes
import VoiceSupport

/// Decodes the messages of one netlink datagram (RFC 3549 §2.2: a 16-byte header, then the
/// payload, each message padded to 4 bytes), reading through a cursor. Integers are in host
/// byte order, addresses in network order. Message types it does not use decode to nothing.
package enum NetlinkMessageParser {
    // linux/netlink.h
    static let messageError: UInt16 = 2
    static let messageDone: UInt16 = 3
    static let messageOverrun: UInt16 = 4
    // linux/rtnetlink.h
    static let newLink: UInt16 = 16
    static let deleteLink: UInt16 = 17
    static let newAddress: UInt16 = 20
    static let deleteAddress: UInt16 = 21
    static let newRoute: UInt16 = 24
    static let deleteRoute: UInt16 = 25

    static let headerLength = 16

    /// Every message in `datagram`, in order.
    package static func parse(_ datagram: UnsafeRawBufferPointer) throws(NetlinkParseError) -> [NetlinkEvent] {
        var reader = ByteReader(datagram)
        var events: [NetlinkEvent] = []
        while reader.remaining >= headerLength {
            let length: Int
            let type: UInt16
            let sequence: UInt32
            let payload: UnsafeRawBufferPointer
            do {
                length = Int(try reader.readHostUInt32())
                type = try reader.readHostUInt16()
                _ = try reader.readHostUInt16()  // flags
                sequence = try reader.readHostUInt32()
                _ = try reader.readHostUInt32()  // port id
                guard length >= headerLength else { throw NetlinkParseError("message length \(length) < header") }
                payload = try reader.readBytes(length - headerLength)
                try reader.skip(min(reader.remaining, align(length) - length))
            } catch let error as NetlinkParseError {
                throw error
            } catch {
                throw NetlinkParseError("message longer than the datagram")
            }
            if let event = try decode(type: type, sequence: sequence, payload: payload) { events.append(event) }
        }
        guard reader.isAtEnd else { throw NetlinkParseError("\(reader.remaining) trailing bytes") }
        return events
    }

    static func align(_ n: Int) -> Int { (n + 3) & ~3 }

    private static func decode(type: UInt16, sequence: UInt32, payload: UnsafeRawBufferPointer) throws(NetlinkParseError)
        -> NetlinkEvent?
    {
        var reader = ByteReader(payload)
        do {
            switch type {
            case messageDone: return .done(sequence: sequence)
            case messageOverrun: return .overrun
            case messageError: return .error(sequence: sequence, code: Int32(bitPattern: try reader.readHostUInt32()))
            case newLink, deleteLink:
                let link = try decodeLink(&reader)
                return type == newLink ? .link(link) : .linkRemoved(index: link.index)
            case newAddress, deleteAddress:
                guard let address = try decodeAddress(&reader) else { return nil }
                return type == newAddress ? .address(address) : .addressRemoved(address)
            case newRoute, deleteRoute:
                guard let route = try decodeRoute(&reader) else { return nil }
                return type == newRoute ? .route(route) : .routeRemoved(route)
            default: return nil
            }
        } catch let error as NetlinkParseError {
            throw error
        } catch {
            throw NetlinkParseError("type \(type) payload truncated")
        }
    }

    // MARK: - Payloads

    /// `struct ifinfomsg` (16 bytes) and its `IFLA_*` attributes.
    private static func decodeLink(_ reader: inout ByteReader) throws -> NetworkLink {
        _ = try reader.readUInt8()  // family
        _ = try reader.readUInt8()  // pad
        let hardwareType = try reader.readHostUInt16()
        let index = Int32(bitPattern: try reader.readHostUInt32())
        let flags = try reader.readHostUInt32()
        _ = try reader.readHostUInt32()  // change mask
        var link = NetworkLink(index: index, name: "", hardwareType: hardwareType, flags: flags)
        try forEachAttribute(&reader) { type, value in
            switch type {
            case 3: link.name = string(value)  // IFLA_IFNAME
            case 16: if let state = value.first { link.operationalState = state }  // IFLA_OPERSTATE
            case 18:  // IFLA_LINKINFO, nested
                var nested = ByteReader(value)
                try forEachAttribute(&nested) { infoType, info in
                    if infoType == 1 { link.kind = string(info) }  // IFLA_INFO_KIND
                }
            default: break
            }
        }
        return link
    }

    /// `struct ifaddrmsg` (8 bytes) and its `IFA_*` attributes; nil for a family other than IPv4/IPv6.
    private static func decodeAddress(_ reader: inout ByteReader) throws -> InterfaceAddress? {
        let family = try reader.readUInt8()
        let prefixLength = try reader.readUInt8()
        var flags = UInt32(try reader.readUInt8())
        let scope = try reader.readUInt8()
        let index = Int32(bitPattern: try reader.readHostUInt32())
        var local: IPAddress?
        var address: IPAddress?
        try forEachAttribute(&reader) { type, value in
            switch type {
            case 1: address = IPAddress(bytes: value)  // IFA_ADDRESS
            case 2: local = IPAddress(bytes: value)  // IFA_LOCAL
            case 8:  // IFA_FLAGS: the full 32-bit flags
                var flagReader = ByteReader(value)
                flags = try flagReader.readHostUInt32()
            default: break
            }
        }
        guard family == 2 || family == 10 else { return nil }  // AF_INET, AF_INET6
        // On point-to-point links IFA_ADDRESS is the peer; IFA_LOCAL is ours when present.
        guard let ours = local ?? address, ours.isIPv6 == (family == 10) else {
            throw NetlinkParseError("address message without a matching address")
        }
        return InterfaceAddress(interfaceIndex: index, address: ours, prefixLength: prefixLength, flags: flags, scope: scope)
    }

    /// `struct rtmsg` (12 bytes) and its `RTA_*` attributes; nil for a family other than IPv4/IPv6.
    private static func decodeRoute(_ reader: inout ByteReader) throws -> NetworkRoute? {
        let family = try reader.readUInt8()
        let destinationLength = try reader.readUInt8()
        _ = try reader.readUInt8()  // source length
        _ = try reader.readUInt8()  // TOS
        var table = UInt32(try reader.readUInt8())
        _ = try reader.readUInt8()  // protocol
        _ = try reader.readUInt8()  // scope
        let type = try reader.readUInt8()
        _ = try reader.readHostUInt32()  // flags
        var route = NetworkRoute(
            isIPv6: family == 10, destinationPrefixLength: destinationLength, table: table, type: type, outputInterface: nil)
        try forEachAttribute(&reader) { attribute, value in
            var valueReader = ByteReader(value)
            switch attribute {
            case 4: route.outputInterface = Int32(bitPattern: try valueReader.readHostUInt32())  // RTA_OIF
            case 5: route.gateway = IPAddress(bytes: value)  // RTA_GATEWAY
            case 6: route.metric = try valueReader.readHostUInt32()  // RTA_PRIORITY
            case 15:  // RTA_TABLE: the full 32-bit table id
                table = try valueReader.readHostUInt32()
                route.table = table
            default: break
            }
        }
        guard family == 2 || family == 10 else { return nil }
        return route
    }

    // MARK: - Attributes

    /// Calls `body` with each attribute (`struct rtattr`: 2-byte length, 2-byte type, value,
    /// padded to 4) until the payload ends. The nested and byte-order bits of the type are cleared.
    private static func forEachAttribute(
        _ reader: inout ByteReader, _ body: (UInt16, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        while reader.remaining >= 4 {
            let length = Int(try reader.readHostUInt16())
            let type = try reader.readHostUInt16() & 0x3FFF
            guard length >= 4 else { throw NetlinkParseError("attribute length \(length) < 4") }
            guard length - 4 <= reader.remaining else { throw NetlinkParseError("attribute \(type) longer than its message") }
            let value = try reader.readBytes(length - 4)
            try reader.skip(min(reader.remaining, align(length) - length))
            try body(type, value)
        }
        guard reader.isAtEnd else { throw NetlinkParseError("\(reader.remaining) stray bytes after the attributes") }
    }

    /// A NUL-terminated attribute string (the NUL and anything after it dropped).
    private static func string(_ value: UnsafeRawBufferPointer) -> String {
        String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
    }
}
