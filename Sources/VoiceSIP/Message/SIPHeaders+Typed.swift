extension SIPHeaders {
    /// Every Via value, top first.
    package func via() throws(SIPParseError) -> [SIPVia] {
        var out: [SIPVia] = []
        for v in try values("via") { out.append(try SIPVia(parsing: v)) }
        return out
    }

    /// The topmost Via value.
    package func topVia() throws(SIPParseError) -> SIPVia {
        guard let v = try via().first else { throw SIPParseError(.missingHeader, "Via") }
        return v
    }

    /// The single value of `name`, rejecting duplicates.
    package func single(_ name: String) throws(SIPParseError) -> String? {
        let all = self[name]
        guard all.count <= 1 else { throw SIPParseError(.duplicateHeader, name) }
        return all.first
    }

    private func required(_ name: String) throws(SIPParseError) -> String {
        guard let v = try single(name) else { throw SIPParseError(.missingHeader, name) }
        return v
    }

    /// The From address.
    package func from() throws(SIPParseError) -> SIPNameAddress { try SIPNameAddress(parsing: required("from")) }
    /// The To address.
    package func to() throws(SIPParseError) -> SIPNameAddress { try SIPNameAddress(parsing: required("to")) }

    /// The Call-ID (`word [@ word]`).
    package func callID() throws(SIPParseError) -> String {
        let v = try required("call-id")
        let parts = v.utf8.split(separator: 0x40, omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(SIPGrammar.isWordChar) }) else {
            throw SIPParseError(.invalidHeaderValue, "bad Call-ID")
        }
        return v
    }

    /// The CSeq.
    package func cseq() throws(SIPParseError) -> SIPCSeq { try SIPCSeq(parsing: required("cseq")) }

    /// Max-Forwards (0 to 255), nil when absent.
    package func maxForwards() throws(SIPParseError) -> Int? {
        guard let v = try single("max-forwards") else { return nil }
        guard let n = SIPGrammar.decimal(ArraySlice(v.utf8), max: 255) else {
            throw SIPParseError(.invalidHeaderValue, "Max-Forwards must be 0-255")
        }
        return n
    }

    /// Content-Length, nil when absent.
    package func contentLength() throws(SIPParseError) -> Int? {
        guard let v = try single("content-length") else { return nil }
        guard let n = SIPGrammar.decimal(ArraySlice(v.utf8), max: Int(Int32.max)) else {
            throw SIPParseError(.invalidContentLength, "Content-Length \(v)")
        }
        return n
    }

    /// Content-Type, nil when absent.
    package func contentType() throws(SIPParseError) -> SIPContentType? {
        try single("content-type").map { v throws(SIPParseError) in try SIPContentType(parsing: v) }
    }

    /// Contact: `*` or the addresses of every Contact field; nil when absent.
    package func contact() throws(SIPParseError) -> SIPContact? {
        let items = try values("contact")
        guard !items.isEmpty else { return nil }
        if items.contains("*") {
            guard items.count == 1 else { throw SIPParseError(.invalidHeaderValue, "Contact * mixed with addresses") }
            return .wildcard
        }
        var out: [SIPNameAddress] = []
        for i in items { out.append(try SIPNameAddress(parsing: i)) }
        return .addresses(out)
    }

    /// Route addresses, in order.
    package func route() throws(SIPParseError) -> [SIPNameAddress] { try addresses("route") }
    /// Record-Route addresses, in order.
    package func recordRoute() throws(SIPParseError) -> [SIPNameAddress] { try addresses("record-route") }

    private func addresses(_ name: String) throws(SIPParseError) -> [SIPNameAddress] {
        var out: [SIPNameAddress] = []
        for i in try values(name) {
            let a = try SIPNameAddress(parsing: i)
            guard a.usedAngleBrackets else { throw SIPParseError(.invalidHeaderValue, "\(name) needs <>") }
            out.append(a)
        }
        return out
    }

    /// WWW-Authenticate values, raw (one per field; challenges contain commas).
    package var wwwAuthenticate: [String] { self["www-authenticate"] }
    /// Proxy-Authenticate values, raw.
    package var proxyAuthenticate: [String] { self["proxy-authenticate"] }
    /// Authorization values, raw.
    package var authorization: [String] { self["authorization"] }
    /// Proxy-Authorization values, raw.
    package var proxyAuthorization: [String] { self["proxy-authorization"] }
}
