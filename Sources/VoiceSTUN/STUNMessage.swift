import VoiceBytes
import VoiceSupport

/// A STUN message (RFC 8489 §5): a 20-byte header (type, length, magic cookie, transaction ID)
/// and type-length-value attributes padded to four bytes. Binding requests and responses with
/// XOR-MAPPED-ADDRESS (or the older MAPPED-ADDRESS) or ERROR-CODE; MESSAGE-INTEGRITY and
/// FINGERPRINT are added by ``serialized(integrity:fingerprint:)`` and checked on the received
/// bytes by ``checkIntegrity(of:key:)`` and ``checkFingerprint(of:)``.
package struct STUNMessage: Hashable, Sendable {
    /// The message type: method and class (RFC 5389 §6).
    package struct MessageType: Hashable, Sendable {
        package var rawValue: UInt16

        package init(rawValue: UInt16) { self.rawValue = rawValue }
        /// A Binding request.
        package static let bindingRequest = MessageType(rawValue: 0x0001)
        /// A Binding success response.
        package static let bindingSuccess = MessageType(rawValue: 0x0101)
        /// A Binding error response.
        package static let bindingError = MessageType(rawValue: 0x0111)
    }

    /// An attribute: its type and value (without padding).
    package struct Attribute: Hashable, Sendable {
        package var type: UInt16
        package var value: [UInt8]

        package init(type: UInt16, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        package static let mappedAddress: UInt16 = 0x0001
        package static let errorCode: UInt16 = 0x0009
        package static let xorMappedAddress: UInt16 = 0x0020
        package static let software: UInt16 = 0x8022
        package static let fingerprint: UInt16 = 0x8028
    }

    /// The magic cookie every RFC 5389 message carries.
    package static let magicCookie: UInt32 = 0x2112_A442
    /// The header's size.
    package static let headerLength = 20

    package var type: MessageType
    /// 12 random bytes that match a response to its request.
    package var transactionID: [UInt8]
    package var attributes: [Attribute]

    /// A message of `type` with `transactionID` (12 bytes) and `attributes`.
    package init(type: MessageType, transactionID: [UInt8], attributes: [Attribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// A Binding request with a fresh random transaction ID.
    package static func bindingRequest(using generator: inout some RandomNumberGenerator) -> STUNMessage {
        STUNMessage(type: .bindingRequest, transactionID: (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Whether `bytes` look like a STUN message rather than SIP or RTP (RFC 5389 §6 and §8):
    /// the two top bits zero, the magic cookie in place, a length that is a multiple of four.
    package static func looksLikeSTUN(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= headerLength else { return false }
        let b = Array(bytes.prefix(8))
        return b[0] & 0xC0 == 0 && b[3] & 0x03 == 0 && b[4] == 0x21 && b[5] == 0x12 && b[6] == 0xA4 && b[7] == 0x42
    }

    /// Parses a message with a cursor reader.
    /// - Throws: ``STUNError`` for anything that is not a well-formed STUN message: too short, a
    ///   wrong cookie, a length that disagrees with the bytes, an attribute running past the end.
    package init(parsing bytes: some Collection<UInt8>) throws(STUNError) {
        let array = Array(bytes)
        self = try array.withUnsafeBytes { raw in Result { () throws(STUNError) in try Self.parse(raw) } }.get()
    }

    private static func parse(_ raw: UnsafeRawBufferPointer) throws(STUNError) -> STUNMessage {
        var reader = ByteReader(raw)
        let rawType: UInt16
        let length: Int
        let cookie: UInt32
        let transactionID: [UInt8]
        do throws(ByteReader.Error) {
            rawType = try reader.readUInt16()
            length = Int(try reader.readUInt16())
            cookie = try reader.readUInt32()
            transactionID = Array(try reader.readBytes(12))
        } catch {
            throw .truncated
        }
        guard rawType & 0xC000 == 0, cookie == Self.magicCookie else { throw .notSTUN }
        guard length % 4 == 0, reader.rest.count == length else { throw .badLength }
        var attributes: [Attribute] = []
        // After MESSAGE-INTEGRITY only FINGERPRINT counts, and nothing after FINGERPRINT
        // (RFC 8489 §14.5, §14.7): what follows is not covered, so it is read and ignored.
        var afterIntegrity = false
        var afterFingerprint = false
        do throws(ByteReader.Error) {
            while !reader.rest.isEmpty {
                let type = try reader.readUInt16()
                let valueLength = Int(try reader.readUInt16())
                let value = Array(try reader.readBytes(valueLength))
                try reader.skip((4 - valueLength % 4) % 4)
                if afterFingerprint || (afterIntegrity && type != Attribute.fingerprint) { continue }
                attributes.append(Attribute(type: type, value: value))
                if type == Attribute.messageIntegrity { afterIntegrity = true }
                if type == Attribute.fingerprint { afterFingerprint = true }
            }
        } catch {
            throw .truncated
        }
        return STUNMessage(type: MessageType(rawValue: rawType), transactionID: transactionID, attributes: attributes)
    }

    /// The message's bytes.
    package var serialized: [UInt8] {
        var body: [UInt8] = []
        for attribute in attributes {
            body += Self.bigEndian(attribute.type) + Self.bigEndian(UInt16(attribute.value.count)) + attribute.value
            body += [UInt8](repeating: 0, count: (4 - attribute.value.count % 4) % 4)
        }
        return Self.bigEndian(type.rawValue) + Self.bigEndian(UInt16(body.count))
            + [0x21, 0x12, 0xA4, 0x42] + transactionID + body
    }

    private static func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// The first attribute of `type`.
    package func attribute(_ type: UInt16) -> Attribute? { attributes.first { $0.type == type } }
}
