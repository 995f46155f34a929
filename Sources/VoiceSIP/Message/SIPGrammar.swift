/// Character classes and escaping rules of the SIP grammar (RFC 3261 §25.1), for the message layer.
enum SIPGrammar {
    static func lower(_ c: UInt8) -> UInt8 { (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c }
    static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    static func isAlpha(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }
    static func isAlphaNum(_ c: UInt8) -> Bool { isAlpha(c) || isDigit(c) }
    static func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }
    static func hexValue(_ c: UInt8) -> UInt8? {
        if isDigit(c) { return c - 0x30 }
        if c >= 0x41 && c <= 0x46 { return c - 0x41 + 10 }
        if c >= 0x61 && c <= 0x66 { return c - 0x61 + 10 }
        return nil
    }
    static func contains(_ set: String, _ c: UInt8) -> Bool { set.utf8.contains(c) }

    /// token = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~")
    static func isToken(_ c: UInt8) -> Bool { isAlphaNum(c) || contains("-.!%*_+`'~", c) }
    /// unreserved = alphanum / mark
    static func isUnreserved(_ c: UInt8) -> Bool { isAlphaNum(c) || contains("-_.!~*'()", c) }
    /// user = 1*( unreserved / escaped / user-unreserved )
    static func isUserChar(_ c: UInt8) -> Bool { isUnreserved(c) || contains("&=+$,;?/", c) }
    /// password = *( unreserved / escaped / "&" / "=" / "+" / "$" / "," )
    static func isPasswordChar(_ c: UInt8) -> Bool { isUnreserved(c) || contains("&=+$,", c) }
    /// paramchar = param-unreserved / unreserved / escaped
    static func isParamChar(_ c: UInt8) -> Bool { isUnreserved(c) || contains("[]/:&+$", c) }
    /// hname / hvalue characters = hnv-unreserved / unreserved / escaped
    static func isHeaderChar(_ c: UInt8) -> Bool { isUnreserved(c) || contains("[]/?:+$", c) }
    /// word = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~" / "(" / ")" /
    ///           "<" / ">" / ":" / "\" / DQUOTE / "/" / "[" / "]" / "?" / "{" / "}")
    static func isWordChar(_ c: UInt8) -> Bool { isToken(c) || contains("()<>:\\\"/[]?{}", c) }
    /// Characters of a hostname, IPv4 address or IPv6 reference.
    static func isHostChar(_ c: UInt8) -> Bool { isAlphaNum(c) || c == 0x2D || c == 0x2E }
    /// Characters of an opaque absolute URI (RFC 2396 uric plus "#").
    static func isOpaqueURIChar(_ c: UInt8) -> Bool {
        isUnreserved(c) || contains(";/?:@&=+$,%#[]", c)
    }

    /// Decodes `%HH` escapes in `bytes`, requiring every other byte to satisfy `allowed`.
    static func unescape(_ bytes: ArraySlice<UInt8>, allowed: (UInt8) -> Bool, what: String) throws(SIPParseError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var reader = SIPTextReader(Array(bytes))
        while let c = reader.read() {
            if c == 0x25 {
                guard let h = reader.read().flatMap(hexValue), let l = reader.read().flatMap(hexValue) else {
                    throw SIPParseError(.invalidURI, "bad escape in \(what)")
                }
                out.append(h << 4 | l)
            } else if allowed(c) {
                out.append(c)
            } else {
                throw SIPParseError(.invalidURI, "character 0x\(String(c, radix: 16)) not allowed in \(what)")
            }
        }
        // SIP text is UTF-8 (RFC 3261 §7.3.1): escapes that decode to anything else would come
        // back as U+FFFD, changing the value and tripling its escaped length when written out.
        guard let text = utf8String(out[...]) else { throw SIPParseError(.invalidURI, "escapes in \(what) are not UTF-8") }
        return text
    }

    /// Escapes every byte of `text` that `allowed` rejects as `%HH`.
    static func escape(_ text: String, allowed: (UInt8) -> Bool) -> String {
        var out: [UInt8] = []
        for c in text.utf8 {
            if allowed(c) && c != 0x25 {
                out.append(c)
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                out.append(0x25)
                out.append(digits[Int(c >> 4)])
                out.append(digits[Int(c & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Returns `bytes` as a String if they are valid UTF-8.
    static func utf8String(_ bytes: ArraySlice<UInt8>) -> String? {
        let failed = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        return failed ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Strips leading and trailing spaces and tabs.
    static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = bytes
        while let f = s.first, isWhitespace(f) { s = s.dropFirst() }
        while let l = s.last, isWhitespace(l) { s = s.dropLast() }
        return s
    }

    static func trim(_ text: String) -> String { String(decoding: trim(ArraySlice(text.utf8)), as: UTF8.self) }

    /// Parses 1*DIGIT into an integer no larger than `max`.
    static func decimal(_ bytes: ArraySlice<UInt8>, max: Int) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        var v = 0
        for c in bytes {
            guard isDigit(c) else { return nil }
            v = v * 10 + Int(c - 0x30)
            if v > max { return nil }
        }
        return v
    }

    /// Quotes `text` as a quoted-string, escaping `"` and `\`.
    static func quote(_ text: String) -> String {
        var out = "\""
        for ch in text.unicodeScalars {
            if ch == "\"" || ch == "\\" { out.append("\\") }
            out.unicodeScalars.append(ch)
        }
        out.append("\"")
        return out
    }
}
