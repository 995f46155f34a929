/// A cursor over the bytes of SIP text that advances as it reads.
///
/// Every parser in the message layer reads through this type; none indexes the text at
/// absolute offsets. It is internal to the message layer.
struct SIPTextReader {
    let bytes: [UInt8]
    private(set) var position: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
    }

    init(_ string: String) { self.init(Array(string.utf8)) }

    var isAtEnd: Bool { position >= bytes.count }
    var remaining: Int { bytes.count - position }

    func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    func peek(ahead n: Int) -> UInt8? {
        let i = position + n
        return i < bytes.count ? bytes[i] : nil
    }

    mutating func read() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    /// Consumes `byte` if it is next; returns whether it did.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    /// Consumes `text` if the input continues with it (ASCII, case-insensitive).
    mutating func consumeCaseInsensitive(_ text: String) -> Bool {
        var i = position
        for c in text.utf8 {
            guard i < bytes.count, SIPGrammar.lower(bytes[i]) == SIPGrammar.lower(c) else { return false }
            i += 1
        }
        position = i
        return true
    }

    /// Reads bytes while `predicate` holds.
    mutating func read(while predicate: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count, predicate(bytes[position]) { position += 1 }
        return bytes[start..<position]
    }

    /// Reads bytes until `byte` (not consumed) or the end.
    mutating func read(upTo byte: UInt8) -> ArraySlice<UInt8> { read(while: { $0 != byte }) }

    /// Skips spaces and tabs; returns whether any were skipped.
    @discardableResult
    mutating func skipWhitespace() -> Bool { !read(while: SIPGrammar.isWhitespace).isEmpty }

    /// Reads everything left.
    mutating func readRest() -> ArraySlice<UInt8> {
        defer { position = bytes.count }
        return bytes[position...]
    }

    /// Reads one line ending in LF (a preceding CR is dropped); nil when no LF remains.
    mutating func readLine() -> ArraySlice<UInt8>? {
        var i = position
        while i < bytes.count, bytes[i] != 0x0A { i += 1 }
        guard i < bytes.count else { return nil }
        var end = i
        if end > position, bytes[end - 1] == 0x0D { end -= 1 }
        defer { position = i + 1 }
        return bytes[position..<end]
    }

    /// Reads a quoted-string (RFC 3261 §25.1) and returns its unescaped content.
    mutating func readQuotedString() throws(SIPParseError) -> String {
        guard consume(0x22) else { throw SIPParseError(.invalidHeaderValue, "expected a quoted string") }
        var out: [UInt8] = []
        while let c = read() {
            switch c {
            case 0x22:
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                guard let escaped = read(), escaped != 0x0A, escaped != 0x0D else {
                    throw SIPParseError(.invalidHeaderValue, "bad quoted-pair")
                }
                out.append(escaped)
            case 0x0D, 0x0A:
                throw SIPParseError(.invalidHeaderValue, "line break inside a quoted string")
            default:
                out.append(c)
            }
        }
        throw SIPParseError(.invalidHeaderValue, "unterminated quoted string")
    }
}

@available(*, unavailable)
extension SIPTextReader: Sendable {}
