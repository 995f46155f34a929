/// A cursor over the UTF-8 bytes of one authentication header value (RFC 7235 §2.1 grammar,
/// as used by RFC 3261 §25.1): a scheme token, then either a comma-separated list of
/// `name=value` parameters (value a token or quoted-string).
///
/// Reads advance; nothing indexes the bytes at an absolute offset. Every read is bounded by
/// the limits in ``SIPAuthLimits``.
struct SIPAuthParamReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) throws(SIPAuthError) {
        guard text.utf8.count <= SIPAuthLimits.maxHeaderValueLength else {
            throw SIPAuthError.limitExceeded.with("header value longer than \(SIPAuthLimits.maxHeaderValueLength) bytes")
        }
        bytes = Array(text.utf8)
    }

    var isAtEnd: Bool { position >= bytes.count }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Skips spaces, tabs and line folds (CR/LF followed by whitespace).
    mutating func skipWhitespace() {
        while let c = current,
            c == UInt8(ascii: " ") || c == UInt8(ascii: "\t")
                || c == UInt8(ascii: "\r") || c == UInt8(ascii: "\n")
        {
            position += 1
        }
    }

    /// Reads the scheme token, which must be followed by whitespace or the end.
    mutating func readScheme() throws(SIPAuthError) -> String {
        let scheme = try readToken()
        guard let c = current else { return scheme }
        guard c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r") || c == UInt8(ascii: "\n")
        else {
            throw SIPAuthError.malformedChallenge.with("no whitespace after scheme '\(scheme)'")
        }
        return scheme
    }

    /// Reads an RFC 7230 token (1*tchar).
    mutating func readToken() throws(SIPAuthError) -> String {
        let start = position
        while let c = current, Self.isTokenChar(c) {
            position += 1
        }
        guard position > start else {
            throw SIPAuthError.malformedChallenge.with("expected a token at byte \(start)")
        }
        guard position - start <= SIPAuthLimits.maxParameterLength else {
            throw SIPAuthError.limitExceeded.with("token longer than \(SIPAuthLimits.maxParameterLength) bytes")
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Consumes `byte` if it is next; reports whether it did.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        position += 1
        return true
    }

    /// Reads a parameter value: a token or a quoted-string (escapes removed).
    mutating func readValue() throws(SIPAuthError) -> String {
        guard consume(UInt8(ascii: "\"")) else { return try readToken() }
        var out: [UInt8] = []
        while true {
            guard let c = current else {
                throw SIPAuthError.malformedChallenge.with("unterminated quoted string")
            }
            position += 1
            if c == UInt8(ascii: "\"") { break }
            var byte = c
            if c == UInt8(ascii: "\\") {
                guard let escaped = current else {
                    throw SIPAuthError.malformedChallenge.with("unterminated escape in quoted string")
                }
                position += 1
                byte = escaped
            }
            // Control characters (CR, LF, NUL...) inside a value would reach the Authorization
            // header we echo it into; refuse them.
            guard byte >= 0x20 || byte == UInt8(ascii: "\t"), byte != 0x7F else {
                throw SIPAuthError.malformedChallenge.with("control character in quoted string")
            }
            out.append(byte)
            guard out.count <= SIPAuthLimits.maxParameterLength else {
                throw SIPAuthError.limitExceeded.with("quoted value longer than \(SIPAuthLimits.maxParameterLength) bytes")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads the `name=value` list that follows a scheme. Names are lowercased; repeats and
    /// more than ``SIPAuthLimits/maxParameterCount`` parameters are errors. Empty list
    /// elements (`a=1,,b=2`) are skipped as RFC 7230 §7 allows.
    mutating func readParameters() throws(SIPAuthError) -> [(name: String, value: String)] {
        var params: [(name: String, value: String)] = []
        while true {
            skipWhitespace()
            if isAtEnd { return params }
            if consume(UInt8(ascii: ",")) { continue }
            let name = try readToken().lowercased()
            skipWhitespace()
            guard consume(UInt8(ascii: "=")) else {
                throw SIPAuthError.malformedChallenge.with("parameter '\(name)' has no '='")
            }
            skipWhitespace()
            let value = try readValue()
            guard !params.contains(where: { $0.name == name }) else {
                throw SIPAuthError.duplicateParameter.with(name)
            }
            params.append((name, value))
            guard params.count <= SIPAuthLimits.maxParameterCount else {
                throw SIPAuthError.limitExceeded.with("more than \(SIPAuthLimits.maxParameterCount) parameters")
            }
            skipWhitespace()
            if isAtEnd { return params }
            guard consume(UInt8(ascii: ",")) else {
                throw SIPAuthError.malformedChallenge.with("expected ',' after parameter '\(name)'")
            }
        }
    }

    static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(c)
        }
    }
}
