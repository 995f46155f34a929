/// URI percent-encoding (RFC 3986 §2.1) of custom parameter values, as they travel in `X-`
/// headers and in a notification's `twi_params`.
enum CallParameterPercentEncoding {
    /// Why a value did not decode.
    enum Failure: Error, Equatable {
        /// `%` not followed by two hex digits, at this byte offset.
        case invalidEscape(offset: Int)
        /// The decoded bytes are not UTF-8.
        case invalidUTF8
    }

    /// Encodes every byte but the unreserved ones (ALPHA DIGIT `-` `.` `_` `~`) as `%HH`.
    static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%HH` escapes, reading through a cursor; every other byte (including `+`) is kept.
    static func decode(_ text: Substring) throws(Failure) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var cursor = 0
        while cursor < bytes.count {
            let byte = bytes[cursor]
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                cursor += 1
                continue
            }
            guard cursor + 2 < bytes.count, let high = hexValue(bytes[cursor + 1]), let low = hexValue(bytes[cursor + 2])
            else { throw .invalidEscape(offset: cursor) }
            out.append(high << 4 | low)
            cursor += 3
        }
        guard let decoded = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
        return decoded
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
