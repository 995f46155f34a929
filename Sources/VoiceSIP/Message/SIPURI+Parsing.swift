extension SIPURI {
    /// Parses a complete URI; every byte of `bytes` must belong to it.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(SIPParseError) -> SIPURI {
        guard bytes.count <= maximumLength else { throw SIPParseError(.tooLarge, "URI longer than \(maximumLength) bytes") }
        var reader = SIPTextReader(Array(bytes))
        let schemeBytes = reader.read(while: { SIPGrammar.isAlphaNum($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        guard let first = schemeBytes.first, SIPGrammar.isAlpha(first), reader.consume(0x3A) else {
            throw SIPParseError(.invalidURI, "missing or invalid scheme")
        }
        let schemeName = String(decoding: schemeBytes, as: UTF8.self).lowercased()
        switch schemeName {
        case "sip": return try parseSIP(&reader, scheme: .sip)
        case "sips": return try parseSIP(&reader, scheme: .sips)
        case "tel": return try parseTel(&reader)
        default:
            let rest = reader.readRest()
            guard !rest.isEmpty, rest.allSatisfy(SIPGrammar.isOpaqueURIChar) else {
                throw SIPParseError(.invalidURI, "invalid characters in \(schemeName) URI")
            }
            var uri = SIPURI(scheme: .other(schemeName), host: "")
            uri.opaque = String(decoding: rest, as: UTF8.self)
            return uri
        }
    }

    private static func parseSIP(_ reader: inout SIPTextReader, scheme: Scheme) throws(SIPParseError) -> SIPURI {
        var uri = SIPURI(scheme: scheme, host: "")
        // The userinfo, if any, ends at the only '@' (user and password cannot hold a raw '@').
        if reader.bytes[reader.position...].contains(0x40) {
            let userinfo = reader.read(upTo: 0x40)
            _ = reader.consume(0x40)
            var info = SIPTextReader(Array(userinfo))
            // The password starts at the first ':' (a user cannot hold a raw ':').
            let userPart = info.read(upTo: 0x3A)
            guard !userPart.isEmpty else { throw SIPParseError(.invalidURI, "empty user") }
            uri.user = try SIPGrammar.unescape(userPart, allowed: SIPGrammar.isUserChar, what: "user")
            if info.consume(0x3A) {
                uri.password = try SIPGrammar.unescape(info.readRest(), allowed: SIPGrammar.isPasswordChar, what: "password")
            }
        }
        uri.host = try parseHost(&reader)
        if reader.consume(0x3A) {
            guard let port = SIPGrammar.decimal(reader.read(while: SIPGrammar.isDigit), max: 65535) else {
                throw SIPParseError(.invalidURI, "invalid port")
            }
            uri.port = port
        }
        uri.parameters = try parseURIParameters(&reader)
        if reader.consume(0x3F) {
            repeat {
                let name = reader.read(while: { $0 != 0x3D && $0 != 0x26 })
                guard reader.consume(0x3D), !name.isEmpty else { throw SIPParseError(.invalidURI, "bad URI header") }
                let value = reader.read(upTo: 0x26)
                guard uri.headers.count < 32 else { throw SIPParseError(.tooLarge, "too many URI headers") }
                uri.headers.append(
                    Header(
                        name: try SIPGrammar.unescape(name, allowed: SIPGrammar.isHeaderChar, what: "URI header"),
                        value: try SIPGrammar.unescape(value, allowed: SIPGrammar.isHeaderChar, what: "URI header")))
            } while reader.consume(0x26)
        }
        guard reader.isAtEnd else { throw SIPParseError(.invalidURI, "unexpected characters after the URI") }
        return uri
    }

    private static func parseURIParameters(_ reader: inout SIPTextReader) throws(SIPParseError) -> SIPParameters {
        var params = SIPParameters()
        while reader.consume(0x3B) {
            let name = reader.read(while: { $0 != 0x3D && $0 != 0x3B && $0 != 0x3F })
            guard !name.isEmpty else { throw SIPParseError(.invalidURI, "empty URI parameter name") }
            var value: String?
            if reader.consume(0x3D) {
                let v = reader.read(while: { $0 != 0x3B && $0 != 0x3F })
                guard !v.isEmpty else { throw SIPParseError(.invalidURI, "empty URI parameter value") }
                value = try SIPGrammar.unescape(v, allowed: SIPGrammar.isParamChar, what: "URI parameter")
            }
            guard params.count < 64 else { throw SIPParseError(.tooLarge, "too many URI parameters") }
            params.set(try SIPGrammar.unescape(name, allowed: SIPGrammar.isParamChar, what: "URI parameter"), value)
        }
        return params
    }

    private static func parseTel(_ reader: inout SIPTextReader) throws(SIPParseError) -> SIPURI {
        let number = reader.read(while: { $0 != 0x3B })
        var uri = SIPURI(scheme: .tel, host: "")
        let isPhoneDigit: (UInt8) -> Bool = { SIPGrammar.isHexDigit($0) || SIPGrammar.contains("+-.()*#", $0) }
        uri.user = try SIPGrammar.unescape(number, allowed: isPhoneDigit, what: "telephone number")
        guard let u = uri.user, !u.isEmpty else { throw SIPParseError(.invalidURI, "empty telephone number") }
        // RFC 3966 has no escapes in a number: one that decodes to anything else ("%55" is
        // "U") is no number, and would not survive being written out again.
        if let bad = u.utf8.first(where: { !isPhoneDigit($0) }) {
            throw SIPParseError(.invalidURI, "character 0x\(String(bad, radix: 16)) not allowed in telephone number")
        }
        uri.parameters = try parseURIParameters(&reader)
        guard reader.isAtEnd else { throw SIPParseError(.invalidURI, "unexpected characters in tel URI") }
        return uri
    }

    /// Parses `hostname / IPv4address / IPv6reference`, returning IPv6 without brackets.
    static func parseHost(_ reader: inout SIPTextReader) throws(SIPParseError) -> String {
        if reader.consume(0x5B) {
            let inner = reader.read(while: { SIPGrammar.isHexDigit($0) || $0 == 0x3A || $0 == 0x2E })
            guard reader.consume(0x5D) else { throw SIPParseError(.invalidURI, "unterminated IPv6 reference") }
            guard ipv6Bytes(inner) != nil else { throw SIPParseError(.invalidURI, "invalid IPv6 address") }
            return String(decoding: inner, as: UTF8.self).lowercased()
        }
        let host = reader.read(while: SIPGrammar.isHostChar)
        guard let first = host.first, SIPGrammar.isAlphaNum(first), host.count <= 255 else {
            throw SIPParseError(.invalidURI, "invalid host")
        }
        return String(decoding: host, as: UTF8.self)
    }

    /// The 16 bytes of an IPv6 address in text form (RFC 4291 §2.2), or nil when malformed.
    static func ipv6Bytes(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count >= 2, text.count <= 45 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        var reader = SIPTextReader(Array(text))
        if reader.peek() == 0x3A {
            guard reader.peek(ahead: 1) == 0x3A else { return nil }
            _ = reader.read(); _ = reader.read()
            sawGap = true
            if reader.isAtEnd { return [UInt8](repeating: 0, count: 16) }
        }
        while !reader.isAtEnd {
            let group = reader.read(while: { SIPGrammar.isHexDigit($0) || $0 == 0x2E })
            if group.contains(0x2E) {
                // Embedded IPv4 must end the address.
                guard reader.isAtEnd, let v4 = ipv4Bytes(group) else { return nil }
                let words = [UInt16(v4[0]) << 8 | UInt16(v4[1]), UInt16(v4[2]) << 8 | UInt16(v4[3])]
                if sawGap { tail += words } else { head += words }
                break
            }
            guard !group.isEmpty, group.count <= 4 else { return nil }
            var v: UInt16 = 0
            for c in group { v = v << 4 | UInt16(SIPGrammar.hexValue(c) ?? 0) }
            if sawGap { tail.append(v) } else { head.append(v) }
            if reader.isAtEnd { break }
            guard reader.consume(0x3A) else { return nil }
            if reader.consume(0x3A) {
                guard !sawGap else { return nil }
                sawGap = true
                if reader.isAtEnd { break }
            } else if reader.isAtEnd {
                return nil
            }
        }
        let total = head.count + tail.count
        if sawGap { guard total <= 7 else { return nil } } else { guard total == 8 else { return nil } }
        let words = head + [UInt16](repeating: 0, count: 8 - total) + tail
        return words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    static func ipv4Bytes(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        let parts = text.split(separator: 0x2E, omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard p.count <= 3, let v = SIPGrammar.decimal(p, max: 255) else { return nil }
            out.append(UInt8(v))
        }
        return out
    }
}
