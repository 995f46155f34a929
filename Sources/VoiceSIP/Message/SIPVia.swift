/// One Via header value (RFC 3261 §20.42, RFC 3581 rport).
package struct SIPVia: Sendable, Equatable, CustomStringConvertible {
    /// The magic cookie that starts RFC 3261 branch identifiers.
    package static let magicCookie = "z9hG4bK"

    /// The transport, uppercased (UDP, TCP, TLS, SCTP, WS, WSS, or an extension).
    package var transport: String
    /// The sent-by host (IPv6 without brackets).
    package var host: String
    /// The sent-by port.
    package var port: Int?
    /// All parameters, in order.
    package var parameters: SIPParameters

    /// Creates a Via value.
    package init(transport: String, host: String, port: Int? = nil, branch: String? = nil) {
        self.transport = transport.uppercased()
        self.host = host
        self.port = port
        self.parameters = SIPParameters()
        if let branch { parameters.set("branch", branch) }
    }

    /// Parses one Via value (not a comma-separated list).
    package init(parsing text: String) throws(SIPParseError) {
        var reader = SIPTextReader(text)
        func part(_ reader: inout SIPTextReader) throws(SIPParseError) -> String {
            reader.skipWhitespace()
            let t = reader.read(while: SIPGrammar.isToken)
            guard !t.isEmpty else { throw SIPParseError(.invalidHeaderValue, "bad Via sent-protocol") }
            reader.skipWhitespace()
            return String(decoding: t, as: UTF8.self)
        }
        let name = try part(&reader)
        guard reader.consume(0x2F) else { throw SIPParseError(.invalidHeaderValue, "bad Via sent-protocol") }
        let version = try part(&reader)
        guard reader.consume(0x2F) else { throw SIPParseError(.invalidHeaderValue, "bad Via sent-protocol") }
        let transport = try part(&reader)
        guard name.uppercased() == "SIP" else { throw SIPParseError(.invalidHeaderValue, "Via protocol is not SIP") }
        guard version == "2.0" else { throw SIPParseError(.versionNotSupported, "Via version \(version)") }
        let host: String
        do { host = try SIPURI.parseHost(&reader) } catch {
            throw SIPParseError(.invalidHeaderValue, "bad Via host")
        }
        self.init(transport: transport, host: host)
        reader.skipWhitespace()
        if reader.consume(0x3A) {
            reader.skipWhitespace()
            guard let p = SIPGrammar.decimal(reader.read(while: SIPGrammar.isDigit), max: 65535) else {
                throw SIPParseError(.invalidHeaderValue, "bad Via port")
            }
            port = p
        }
        parameters = try SIPParameters.parseHeaderParameters(&reader)
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw SIPParseError(.invalidHeaderValue, "unexpected text in Via") }
        if let rport = parameters["rport"], let value = rport, SIPGrammar.decimal(ArraySlice(value.utf8), max: 65535) == nil {
            throw SIPParseError(.invalidHeaderValue, "bad rport")
        }
    }

    /// The `branch` parameter.
    package var branch: String? { parameters.value("branch") }
    /// True when the branch starts with the RFC 3261 magic cookie and has more after it.
    package var hasRFC3261Branch: Bool {
        guard let branch else { return false }
        return branch.hasPrefix(SIPVia.magicCookie) && branch.count > SIPVia.magicCookie.count
    }
    /// The `received` parameter.
    package var received: String? { parameters.value("received") }
    /// True when `rport` is present (with or without a value).
    package var hasRport: Bool { parameters.contains("rport") }
    /// The value of `rport`, if filled in.
    package var rport: Int? { parameters.value("rport").flatMap { Int($0) } }

    package var description: String {
        var s = "SIP/2.0/\(transport) " + (host.contains(":") ? "[\(host)]" : host)
        if let port { s += ":\(port)" }
        return s + parameters.headerString
    }
}
