/// Base64url decoding (RFC 4648 §5) without padding, as JWT segments use it (RFC 7515 §2).
enum AccessTokenBase64URL {
    /// Why a segment did not decode.
    enum Failure: Error, Equatable {
        /// A byte outside the base64url alphabet (including `=` padding) at this offset.
        case invalidCharacter(offset: Int)
        /// A length that leaves one dangling character (length mod 4 == 1).
        case invalidLength
    }

    /// Decodes `input`, reading it through a cursor four characters at a time.
    static func decode(_ input: ArraySlice<UInt8>) throws(Failure) -> [UInt8] {
        if input.count % 4 == 1 { throw .invalidLength }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var cursor = input.startIndex
        var accumulator: UInt32 = 0
        var bits = 0
        while cursor < input.endIndex {
            guard let value = sextet(input[cursor]) else {
                throw .invalidCharacter(offset: cursor - input.startIndex)
            }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
            cursor += 1
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
