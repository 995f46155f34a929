import VoiceBytes
import VoiceSupport
/// Strict base64 (RFC 4648 §4 alphabet) for SDES key-salt fields.
///
/// Decoding rejects characters outside the alphabet, misplaced or excess padding, and
/// non-zero bits after the last encoded byte. Trailing `=` padding may be omitted.
enum SDESBase64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes` with padding.
    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 0x3F)])
            out.append(alphabet[Int(group >> 12 & 0x3F)])
            out.append(i + 1 < bytes.count ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `text`, or returns nil if it is not canonical base64.
    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var reader = ByteReader(text)
        var out = [UInt8]()
        out.reserveCapacity(text.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        var symbols = 0
        var padding = 0
        while let c = try? reader.readUInt8() {
            if c == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let v = value(of: c) else { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            symbols += 1
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        let remainder = symbols % 4
        guard remainder != 1, accumulator == 0 else { return nil }
        if padding > 0 {
            guard padding == (4 - remainder) % 4, remainder != 0 else { return nil }
        }
        return out
    }

    private static func value(of c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
