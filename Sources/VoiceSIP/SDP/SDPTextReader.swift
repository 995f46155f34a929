/// A cursor over the UTF-8 bytes of SDP text: reads lines, then space-separated tokens and
/// decimal numbers within a line, always advancing, never indexing at an absolute offset.
struct SDPTextReader {
    private let bytes: [UInt8]
    private var position: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
    }

    init(_ text: Substring) { self.init(Array(text.utf8)) }
    init(_ text: String) { self.init(Array(text.utf8)) }

    var isAtEnd: Bool { position >= bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[position] }

    /// Reads up to the next LF (or the end), dropping a CR before it. Returns nil at the end.
    /// `maxLength` bounds the returned line; a longer one throws `lineTooLong`.
    mutating func readLine(maxLength: Int) -> Result<ArraySlice<UInt8>, SDPTextReaderLineError>? {
        guard !isAtEnd else { return nil }
        let start = position
        while let byte = peek, byte != UInt8(ascii: "\n") { position += 1 }
        var end = position
        if !isAtEnd { position += 1 }  // the LF
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end - start <= maxLength else { return .failure(.tooLong) }
        return .success(bytes[start..<end])
    }

    /// Reads one byte.
    mutating func readByte() -> UInt8? {
        guard let byte = peek else { return nil }
        position += 1
        return byte
    }

    /// Reads until a space (not consumed) or the end.
    mutating func readToken() -> Substring {
        let start = position
        while let byte = peek, byte != UInt8(ascii: " ") { position += 1 }
        return Substring(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Reads until `delimiter` (consumed) or the end; returns nil if the delimiter is absent.
    mutating func readUntil(_ delimiter: UInt8) -> Substring? {
        let start = position
        while let byte = peek, byte != delimiter { position += 1 }
        guard !isAtEnd else {
            position = start
            return nil
        }
        let text = Substring(decoding: bytes[start..<position], as: UTF8.self)
        position += 1
        return text
    }

    /// Reads everything left.
    mutating func readRest() -> Substring {
        let text = Substring(decoding: bytes[position...], as: UTF8.self)
        position = bytes.count
        return text
    }

    /// Consumes exactly one space; false if the next byte is not a space.
    mutating func consumeSpace() -> Bool {
        guard peek == UInt8(ascii: " ") else { return false }
        position += 1
        return true
    }

    /// Consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    /// Reads 1 to `maxDigits` decimal digits; nil (cursor unchanged) if none or too many.
    /// At most 19 digits are read whatever `maxDigits` says, so the value cannot overflow.
    mutating func readDecimal(maxDigits: Int) -> UInt64? {
        let maxDigits = min(maxDigits, 19)
        let start = position
        var value: UInt64 = 0
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            guard position - start < maxDigits else {
                position = start
                return nil
            }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
            position += 1
        }
        guard position > start else { return nil }
        return value
    }

    /// Parses a whole token as a decimal number of at most `maxDigits` digits.
    static func decimal(_ text: Substring, maxDigits: Int = 19) -> UInt64? {
        var reader = SDPTextReader(text)
        guard let value = reader.readDecimal(maxDigits: maxDigits), reader.isAtEnd else { return nil }
        return value
    }
}

/// Why ``SDPTextReader/readLine(maxLength:)`` failed.
enum SDPTextReaderLineError: Error {
    case tooLong
}
