/// An `a=fingerprint` value (RFC 8122 §5): the hash of the certificate a DTLS peer will
/// present, `<hash-function> <XX:XX:…>`. Hash names arrive in either case (browsers write
/// `sha-256`, baresip and linphone `SHA-256`); they are kept lowercased.
package struct SDPFingerprint: Hashable, Sendable {
    /// `sha-1`, `sha-224`, `sha-256`, `sha-384`, `sha-512`, `md5`, `md2`, lowercased.
    package var hashFunction: String
    /// The digest.
    package var digest: [UInt8]

    package init(hashFunction: String, digest: [UInt8]) {
        self.hashFunction = hashFunction.lowercased()
        self.digest = digest
    }

    /// The digest's length for each hash function RFC 8122 names.
    private static let digestLengths = ["sha-1": 20, "sha-224": 28, "sha-256": 32, "sha-384": 48, "sha-512": 64, "md5": 16, "md2": 16]

    /// Parses the text after `a=fingerprint:`; nil for an unknown hash function, a digest of the
    /// wrong length, or anything but colon-separated hex pairs.
    package init?(parsing text: Substring) {
        var reader = SDPTextReader(text)
        let function = reader.readToken().lowercased()
        guard let length = Self.digestLengths[function], reader.consumeSpace() else { return nil }
        var digest: [UInt8] = []
        while true {
            guard let high = reader.readByte().flatMap(Self.nibble), let low = reader.readByte().flatMap(Self.nibble) else { return nil }
            digest.append(high << 4 | low)
            if reader.isAtEnd { break }
            guard digest.count < length, reader.consume(UInt8(ascii: ":")) else { return nil }
        }
        guard digest.count == length else { return nil }
        self.init(hashFunction: function, digest: digest)
    }

    /// The attribute value, as after `a=fingerprint:` (uppercase hex, as RFC 8122 writes it).
    package var value: String {
        let hex = Array("0123456789ABCDEF".utf8)
        let pairs = digest.map { String(decoding: [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]], as: UTF8.self) }
        return hashFunction + " " + pairs.joined(separator: ":")
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

/// An `a=setup` value (RFC 4145 §4, RFC 5763 §5): which side opens the DTLS association.
package enum SDPSetupRole: String, Hashable, Sendable {
    /// The offerer's choice: either (an offer must say this, browsers refuse anything else).
    case actpass
    /// The DTLS client.
    case active
    /// The DTLS server.
    case passive
    /// No connection now.
    case holdconn

    /// Parses the text after `a=setup:` (case-insensitive).
    package init?(parsing text: Substring) { self.init(rawValue: text.lowercased()) }
}

extension SDPMediaDescription {
    /// Whether the transport is DTLS-SRTP: `UDP/TLS/RTP/SAVPF` (browsers, baresip, rtpengine) or
    /// `UDP/TLS/RTP/SAVP` (linphone), RFC 5764 §8.
    package var isDTLSSRTP: Bool { proto.uppercased().hasPrefix("UDP/TLS/RTP/SAVP") }

    /// The `a=fingerprint` lines that parse, this section's, else the session's (RFC 8122 §5:
    /// either level). aiortc lists several hash functions; a certificate must match one of them.
    package func fingerprints(in session: SDPSessionDescription) -> [SDPFingerprint] {
        let mine = attributeValues("fingerprint").compactMap { SDPFingerprint(parsing: Substring($0)) }
        guard mine.isEmpty else { return mine }
        return session.attributes.filter { $0.name == "fingerprint" }.compactMap { $0.value.flatMap { SDPFingerprint(parsing: Substring($0)) } }
    }

    /// The `a=setup` role, this section's, else the session's.
    package func setupRole(in session: SDPSessionDescription) -> SDPSetupRole? {
        let value = attributeValues("setup").first ?? session.attributes.first { $0.name == "setup" }?.value
        return value.flatMap { SDPSetupRole(parsing: Substring($0)) }
    }
}
