import VoiceBytes
import VoiceSupport

extension STUNMessage.Attribute {
    package static let username: UInt16 = 0x0006
    package static let messageIntegrity: UInt16 = 0x0008
    package static let realm: UInt16 = 0x0014
    package static let nonce: UInt16 = 0x0015
    package static let priority: UInt16 = 0x0024
    package static let useCandidate: UInt16 = 0x0025
    package static let iceControlled: UInt16 = 0x8029
    package static let iceControlling: UInt16 = 0x802A
    /// NOMINATION (draft-thatcher-ice-renomination, as WebRTC implements it): which nomination
    /// a USE-CANDIDATE check is, so a controlled peer takes a later one over an earlier.
    package static let nomination: UInt16 = 0xC001
}

/// What checking a received message's MESSAGE-INTEGRITY found.
package enum STUNIntegrityCheck: Hashable, Sendable {
    /// The HMAC matches the key.
    case valid
    /// The HMAC does not match: a wrong key, or a tampered message.
    case invalid
    /// The message carries no MESSAGE-INTEGRITY.
    case absent
}

extension STUNMessage {
    /// FINGERPRINT's CRC-32 is XORed with this ("STUN"), so that it differs from another
    /// protocol's CRC over the same bytes (RFC 8489 §14.7).
    private static let fingerprintXOR: UInt32 = 0x5354_554E

    /// The message's bytes, then MESSAGE-INTEGRITY keyed with `key` (when given), then
    /// FINGERPRINT (when asked), in the order RFC 8489 §14.5 and §14.7 require: each covers
    /// the message before it, with the header's length counting the attribute itself.
    /// `attributes` should hold neither.
    package func serialized(integrity key: STUNIntegrityKey?, fingerprint: Bool) -> [UInt8] {
        var bytes = serialized
        if let key {
            Self.setLength(of: &bytes, to: bytes.count - Self.headerLength + 24)
            bytes += [0x00, 0x08, 0x00, 0x14] + key.authenticationCode(bytes)
        }
        if fingerprint {
            Self.setLength(of: &bytes, to: bytes.count - Self.headerLength + 8)
            let crc = CRC32.checksum(bytes) ^ Self.fingerprintXOR
            bytes += [0x80, 0x28, 0x00, 0x04, UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        }
        return bytes
    }

    /// Checks the MESSAGE-INTEGRITY of the received message `bytes` against `key`: the HMAC
    /// over the bytes before the attribute, the header's length adjusted to end with it
    /// (RFC 8489 §14.5). Bytes that are not a well-formed message are ``STUNIntegrityCheck/invalid``.
    package static func checkIntegrity(of bytes: [UInt8], key: STUNIntegrityKey) -> STUNIntegrityCheck {
        guard let layout = AttributeLayout(bytes) else { return .invalid }
        guard let offset = layout.integrityOffset else { return .absent }
        guard offset + 24 <= bytes.count else { return .invalid }
        var covered = Array(bytes[0..<offset])
        setLength(of: &covered, to: offset - headerLength + 24)
        let expected = key.authenticationCode(covered)
        let received = bytes[(offset + 4)..<(offset + 24)]
        // Constant time: how many bytes matched must not show in how long the check took.
        let difference = zip(expected, received).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
        return difference == 0 ? .valid : .invalid
    }

    /// Whether the FINGERPRINT of the received message `bytes` is right: nil when it has none.
    package static func checkFingerprint(of bytes: [UInt8]) -> Bool? {
        guard let layout = AttributeLayout(bytes) else { return false }
        guard let offset = layout.fingerprintOffset else { return nil }
        guard offset + 8 == bytes.count else { return false }
        var covered = Array(bytes[0..<offset])
        setLength(of: &covered, to: offset - headerLength + 8)
        let crc = CRC32.checksum(covered) ^ fingerprintXOR
        let received = bytes[(offset + 4)..<(offset + 8)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return crc == received
    }

    private static func setLength(of bytes: inout [UInt8], to length: Int) {
        bytes[2] = UInt8((length >> 8) & 0xFF)
        bytes[3] = UInt8(length & 0xFF)
    }
}

/// Where a message's MESSAGE-INTEGRITY and FINGERPRINT start, read with a cursor.
private struct AttributeLayout {
    var integrityOffset: Int?
    var fingerprintOffset: Int?

    init?(_ bytes: [UInt8]) {
        guard STUNMessage.looksLikeSTUN(bytes) else { return nil }
        let found = bytes.withUnsafeBytes { raw -> (Int?, Int?)? in
            var reader = ByteReader(raw)
            var integrity: Int?
            var fingerprint: Int?
            do throws(ByteReader.Error) {
                try reader.skip(2)
                let length = Int(try reader.readUInt16())
                guard length + STUNMessage.headerLength == raw.count else { return nil }
                try reader.skip(16)
                while !reader.isAtEnd {
                    let offset = reader.offset
                    let type = try reader.readUInt16()
                    let valueLength = Int(try reader.readUInt16())
                    try reader.skip(valueLength)
                    try reader.skip((4 - valueLength % 4) % 4)
                    if type == STUNMessage.Attribute.messageIntegrity, integrity == nil, fingerprint == nil { integrity = offset }
                    if type == STUNMessage.Attribute.fingerprint, fingerprint == nil { fingerprint = offset }
                }
            } catch {
                return nil
            }
            return (integrity, fingerprint)
        }
        guard let found else { return nil }
        integrityOffset = found.0
        fingerprintOffset = found.1
    }
}
