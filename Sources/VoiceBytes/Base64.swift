/// Base64 (RFC 4648), read through the cursor: the standard alphabet (§4: SDES key-salt fields)
/// or the URL-safe one (§5: JWT segments, RFC 7515 §2), with or without padding.
package enum Base64 {
    /// Which 64 characters carry the sextets.
    package enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 + /` (§4).
        case standard
        /// `A–Z a–z 0–9 - _` (§5).
        case url
    }

    /// Why text did not decode.
    package enum Failure: Error, Equatable, Sendable {
        /// A byte outside the alphabet, or `=` where padding is not allowed, at this offset.
        case invalidCharacter(offset: Int)
        /// One character dangles after the last full group (length mod 4 == 1).
        case invalidLength
        /// Data after `=`, or more or fewer `=` than the last group needs.
        case invalidPadding
        /// Bits set after the last encoded byte: some other text decodes to the same bytes.
        case nonCanonical
    }

    /// `bytes` in `alphabet`, with `=` padding when `padded`.
    package static func encode(_ bytes: [UInt8], alphabet: Alphabet = .standard, padded: Bool = true) -> String {
        let table = characters(alphabet)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(table[Int(group >> 18 & 0x3F)])
            out.append(table[Int(group >> 12 & 0x3F)])
            if index + 1 < bytes.count { out.append(table[Int(group >> 6 & 0x3F)]) } else if padded { out.append(UInt8(ascii: "=")) }
            if index + 2 < bytes.count { out.append(table[Int(group & 0x3F)]) } else if padded { out.append(UInt8(ascii: "=")) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `text`.
    /// - Parameters:
    ///   - alphabet: The alphabet it is in.
    ///   - allowsPadding: Whether `=` may end it (then it must be exactly what the last group
    ///     needs); without, `=` is an invalid character. Padding may always be left out.
    ///   - requiresCanonical: Whether bits after the last byte must be zero.
    package static func decode(
        _ text: some Collection<UInt8>, alphabet: Alphabet, allowsPadding: Bool, requiresCanonical: Bool
    ) throws(Failure) -> [UInt8] {
        let bytes = Array(text)
        if !allowsPadding, bytes.count % 4 == 1 { throw .invalidLength }
        var result: Result<[UInt8], Failure> = .success([])
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(Failure) in
                try decode(raw, alphabet: alphabet, allowsPadding: allowsPadding, requiresCanonical: requiresCanonical)
            }
        }
        return try result.get()
    }

    private static func decode(
        _ raw: UnsafeRawBufferPointer, alphabet: Alphabet, allowsPadding: Bool, requiresCanonical: Bool
    ) throws(Failure) -> [UInt8] {
        var reader = ByteReader(raw)
        var out: [UInt8] = []
        out.reserveCapacity(raw.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        var symbols = 0
        var padding = 0
        while let byte = try? reader.readUInt8() {
            let offset = reader.offset - 1
            if byte == UInt8(ascii: "=") {
                guard allowsPadding else { throw .invalidCharacter(offset: offset) }
                padding += 1
                continue
            }
            guard padding == 0 else { throw .invalidPadding }
            guard let value = sextet(byte, alphabet) else { throw .invalidCharacter(offset: offset) }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            symbols += 1
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        let remainder = symbols % 4
        guard remainder != 1 else { throw .invalidLength }
        if padding > 0, padding != (4 - remainder) % 4 || remainder == 0 { throw .invalidPadding }
        if requiresCanonical, accumulator != 0 { throw .nonCanonical }
        return out
    }

    private static let standardCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func characters(_ alphabet: Alphabet) -> [UInt8] {
        switch alphabet {
        case .standard: standardCharacters
        case .url: urlCharacters
        }
    }

    private static func sextet(_ byte: UInt8, _ alphabet: Alphabet) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+") where alphabet == .standard: 62
        case UInt8(ascii: "/") where alphabet == .standard: 63
        case UInt8(ascii: "-") where alphabet == .url: 62
        case UInt8(ascii: "_") where alphabet == .url: 63
        default: nil
        }
    }
}
