import VoiceBytes
import VoiceSupport
/// A cursor over the UTF-8 bytes of an SDES attribute, built on ``ByteReader``: reads
/// delimiter-separated fields and decimal numbers without indexing the text.
struct SDESTextReader {
    private var reader: ByteReader

    init(_ bytes: UnsafeRawBufferPointer) { reader = ByteReader(bytes) }

    var isAtEnd: Bool { reader.isAtEnd }

    /// The next byte, without advancing.
    var peek: UInt8? { reader.rest.first }

    /// Reads up to (not including) the first byte for which `isDelimiter` holds, or to the end.
    mutating func readField(until isDelimiter: (UInt8) -> Bool) -> UnsafeRawBufferPointer {
        let count = reader.rest.firstIndex(where: isDelimiter) ?? reader.remaining
        return (try? reader.readBytes(count)) ?? UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// Consumes `byte` if it is next; reports whether it did.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        _ = try? reader.readUInt8()
        return true
    }

    /// Consumes `prefix` if the text continues with it; reports whether it did.
    mutating func consume(prefix: String) -> Bool {
        let expected = Array(prefix.utf8)
        guard reader.rest.starts(with: expected) else { return false }
        _ = try? reader.skip(expected.count)
        return true
    }

    /// Skips spaces and tabs; returns how many were skipped.
    @discardableResult
    mutating func skipWhitespace() -> Int {
        let field = readField(until: { !Self.isWhitespace($0) })
        return field.count
    }

    static func isWhitespace(_ c: UInt8) -> Bool { c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") }

    /// Parses a non-empty run of ASCII digits of at most `maxDigits`, or nil (including overflow).
    static func decimal(_ field: UnsafeRawBufferPointer, maxDigits: Int = 20) -> UInt64? {
        guard !field.isEmpty, field.count <= maxDigits else { return nil }
        var reader = ByteReader(field)
        var value: UInt64 = 0
        while let c = try? reader.readUInt8() {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(c - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }
}

@available(*, unavailable)
extension SDESTextReader: Sendable {}
