import VoiceAddress

/// STUN's address attributes (RFC 8489 §14.1, §14.2): MAPPED-ADDRESS and XOR-MAPPED-ADDRESS, the
/// transport address a STUN server saw a request come from (the server-reflexive address: for a
/// client behind a NAT, the NAT's public address and port), and TURN's XOR-RELAYED-ADDRESS and
/// XOR-PEER-ADDRESS, which share the XOR form.
extension TransportAddress {
    /// The mapped address of a Binding success response: XOR-MAPPED-ADDRESS, else MAPPED-ADDRESS.
    /// - Throws: ``STUNError/errorResponse(_:)`` for an error response (with its code),
    ///   ``STUNError/noMappedAddress`` when neither attribute is there, ``STUNError/badAddress``.
    package init(stunResponse response: STUNMessage) throws(STUNError) {
        if response.type == .bindingError {
            let code = response.attribute(STUNMessage.Attribute.errorCode).map { value -> Int in
                let v = value.value
                guard v.count >= 4 else { return 0 }
                return Int(v[2] & 0x07) * 100 + Int(v[3])
            }
            throw .errorResponse(code ?? 0)
        }
        if let xored = response.attribute(STUNMessage.Attribute.xorMappedAddress) {
            self = try Self.decode(xored.value, xorWith: [0x21, 0x12, 0xA4, 0x42] + response.transactionID)
        } else if let plain = response.attribute(STUNMessage.Attribute.mappedAddress) {
            self = try Self.decode(plain.value, xorWith: nil)
        } else {
            throw .noMappedAddress
        }
    }

    /// The attribute's value: reserved byte, family (1 IPv4, 2 IPv6), port, address; XORed with
    /// the cookie (port, IPv4) and transaction ID (IPv6) for XOR-MAPPED-ADDRESS.
    private static func decode(_ value: [UInt8], xorWith mask: [UInt8]?) throws(STUNError) -> TransportAddress {
        guard value.count >= 4 else { throw .badAddress }
        let family = value[1]
        let size: Int
        switch family {
        case 0x01: size = 4
        case 0x02: size = 16
        default: throw .badAddress
        }
        guard value.count == 4 + size else { throw .badAddress }
        var port = UInt16(value[2]) << 8 | UInt16(value[3])
        var bytes = Array(value[4...])
        if let mask {
            port ^= UInt16(mask[0]) << 8 | UInt16(mask[1])
            for i in 0..<size { bytes[i] ^= mask[i] }
        }
        guard let address = IPAddress(bytes: bytes) else { throw .badAddress }
        return TransportAddress(ip: address, port: port)
    }

    /// Decodes an XOR-MAPPED-ADDRESS-style value (TURN's XOR-RELAYED-ADDRESS and
    /// XOR-PEER-ADDRESS too) of a message with `transactionID`.
    package init(stunXORValue value: [UInt8], transactionID: [UInt8]) throws(STUNError) {
        self = try Self.decode(value, xorWith: [0x21, 0x12, 0xA4, 0x42] + transactionID)
    }

    /// The value of an XOR-MAPPED-ADDRESS attribute for this address in a message with
    /// `transactionID` (what a server writes; for tests and test servers).
    package func xorAttributeValue(transactionID: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [0x21, 0x12, 0xA4, 0x42] + transactionID
        let xoredPort = port ^ 0x2112
        var bytes = ip.bytes
        for i in bytes.indices { bytes[i] ^= mask[i] }
        return [0, ip.isIPv6 ? 0x02 : 0x01, UInt8(xoredPort >> 8), UInt8(xoredPort & 0xFF)] + bytes
    }
}
