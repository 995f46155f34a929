import VoiceAddress
import VoiceBytes
import VoiceSTUN
import VoiceSupport

/// TURN's methods and attributes (RFC 8656 §17, §18) on top of STUN's message format.
package enum TURN {
    /// Method numbers; the class bits are added by ``request(_:)`` and friends.
    package static let allocate: UInt16 = 0x003
    package static let refresh: UInt16 = 0x004
    package static let send: UInt16 = 0x006
    package static let data: UInt16 = 0x007
    package static let createPermission: UInt16 = 0x008
    package static let channelBind: UInt16 = 0x009

    package static let channelNumber: UInt16 = 0x000C
    package static let lifetime: UInt16 = 0x000D
    package static let xorPeerAddress: UInt16 = 0x0012
    package static let dataAttribute: UInt16 = 0x0013
    package static let xorRelayedAddress: UInt16 = 0x0016
    package static let requestedTransport: UInt16 = 0x0019
    /// REQUESTED-ADDRESS-FAMILY (RFC 8656 §18.1): the one family of the relayed address.
    package static let requestedAddressFamily: UInt16 = 0x0017
    /// ADDITIONAL-ADDRESS-FAMILY (RFC 8656 §18.2): an IPv6 relayed address besides the IPv4 one.
    package static let additionalAddressFamily: UInt16 = 0x8000
    /// ADDRESS-ERROR-CODE (RFC 8656 §18.3): why a family asked for was not allocated.
    package static let addressErrorCode: UInt16 = 0x8001
    /// The same two at the code points of the draft RFC 8656 took them from
    /// (draft-ietf-tram-turn-dual-allocation), which coturn 4.6 still uses.
    package static let draftAdditionalAddressFamily: UInt16 = 0x8032
    package static let draftAddressErrorCode: UInt16 = 0x8033

    /// The family value of the two attributes above: 0x01 IPv4, 0x02 IPv6, then three reserved bytes.
    package static func family(ipv6: Bool) -> [UInt8] { [ipv6 ? 0x02 : 0x01, 0, 0, 0] }

    /// Every XOR-…-ADDRESS attribute of `type` in `message` that decodes, in order (a dual
    /// allocation's success carries two XOR-RELAYED-ADDRESS attributes).
    package static func addresses(_ type: UInt16, of message: STUNMessage) -> [TransportAddress] {
        message.attributes.filter { $0.type == type }.compactMap { try? TransportAddress(stunXORValue: $0.value, transactionID: message.transactionID) }
    }

    /// The message type of `method`'s request, success, error and indication (RFC 8489 §5: the
    /// class bits are 0x0000, 0x0100, 0x0110 and 0x0010 for methods below 0x080).
    package static func request(_ method: UInt16) -> STUNMessage.MessageType { STUNMessage.MessageType(rawValue: method) }
    package static func success(_ method: UInt16) -> STUNMessage.MessageType { STUNMessage.MessageType(rawValue: method | 0x0100) }
    package static func error(_ method: UInt16) -> STUNMessage.MessageType { STUNMessage.MessageType(rawValue: method | 0x0110) }
    package static func indication(_ method: UInt16) -> STUNMessage.MessageType { STUNMessage.MessageType(rawValue: method | 0x0010) }

    /// A 32-bit attribute value.
    package static func uint32(_ value: UInt32) -> [UInt8] { bigEndianBytes(value) }

    /// An XOR-…-ADDRESS value for `address` in a message with `transactionID`.
    package static func xorAddress(_ address: TransportAddress, transactionID: [UInt8]) -> [UInt8] {
        TransportAddress(ip: address.ip, port: address.port).xorAttributeValue(transactionID: transactionID)
    }

    /// Reads an XOR-…-ADDRESS attribute of `message`.
    package static func address(_ type: UInt16, of message: STUNMessage) -> TransportAddress? {
        guard let value = message.attribute(type)?.value,
            let decoded = try? TransportAddress(stunXORValue: value, transactionID: message.transactionID)
        else { return nil }
        return decoded
    }

    /// The ERROR-CODE of an error response (class × 100 + number), nil if it has none.
    package static func errorCode(of message: STUNMessage) -> Int? {
        message.attribute(STUNMessage.Attribute.errorCode).flatMap { errorCode(in: $0.value) }
    }

    /// The class × 100 + number of an ERROR-CODE or ADDRESS-ERROR-CODE value (both keep them in
    /// the third and fourth bytes), nil when it is too short.
    package static func errorCode(in value: [UInt8]) -> Int? {
        value.count >= 4 ? Int(value[2] & 0x07) * 100 + Int(value[3]) : nil
    }

    // MARK: - ChannelData (RFC 8656 §12.4)

    /// Channel numbers a client may bind: 0x4000 through 0x4FFF.
    package static let channelNumbers: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// A ChannelData message: channel number, length, the data, padded to four bytes (always,
    /// so the same bytes work over UDP and TCP).
    package static func channelData(_ data: [UInt8], channel: UInt16) -> [UInt8] {
        [UInt8(channel >> 8), UInt8(channel & 0xFF), UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
            + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
    }

    /// How long the message that starts with `header` (at least its first 4 bytes) is on a
    /// stream to the server (RFC 8656 §12.5): a STUN message's 20-byte header and its length,
    /// or ChannelData's 4 bytes and its length padded to four. Nil for anything else (the
    /// stream is then out of step and must be closed).
    package static func framedLength(header b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) -> Int? {
        let length = Int(b2) << 8 | Int(b3)
        switch b0 {
        case 0x00...0x3F: return length % 4 == 0 ? 20 + length : nil
        case 0x40...0x4F: return 4 + (length + 3) / 4 * 4
        default: return nil
        }
    }

    /// Reads a ChannelData message: its channel and data; nil if `bytes` is not one (the first
    /// two bits 01, a channel in range, a length that fits).
    package static func readChannelData(_ bytes: [UInt8]) -> (channel: UInt16, data: [UInt8])? {
        bytes.withUnsafeBytes { raw -> (UInt16, [UInt8])? in
            var reader = ByteReader(raw)
            guard let channel = try? reader.readUInt16(), channelNumbers.contains(channel),
                let length = try? reader.readUInt16(), let data = try? reader.readBytes(Int(length))
            else { return nil }
            return (channel, Array(data))
        }
    }
}
