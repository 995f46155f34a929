/// Parses SIP messages from bytes (RFC 3261 §7) and checks the header fields every message needs.
///
/// A datagram holds one message: its body is the bytes after the blank line, cut to
/// Content-Length when present (a shorter body is an error). Stream transports frame messages
/// with ``SIPStreamFramer``, which uses the same parser. Pure and stateless apart from limits.
package struct SIPMessageParser: Sendable {
    /// Size limits applied while parsing.
    package struct Limits: Sendable, Equatable {
        /// Largest accepted message, head and body, in bytes.
        package var maximumMessageSize: Int
        /// Largest accepted header section (start line and headers), in bytes.
        package var maximumHeaderSize: Int
        /// Most header field lines accepted.
        package var maximumHeaderCount: Int

        /// Creates limits.
        package init(maximumMessageSize: Int = 65_535, maximumHeaderSize: Int = 32_768, maximumHeaderCount: Int = 256) {
            self.maximumMessageSize = maximumMessageSize
            self.maximumHeaderSize = maximumHeaderSize
            self.maximumHeaderCount = maximumHeaderCount
        }
    }

    /// The limits in force.
    package var limits: Limits

    /// Creates a parser.
    package init(limits: Limits = Limits()) { self.limits = limits }

    /// Parses one message received as a datagram.
    package func parse(datagram bytes: [UInt8]) throws(SIPParseError) -> SIPMessage {
        guard bytes.count <= limits.maximumMessageSize else {
            throw SIPParseError(.tooLarge, "message of \(bytes.count) bytes")
        }
        var reader = SIPTextReader(bytes)
        let head = try parseHead(&reader)
        let rest = reader.readRest()
        let body: [UInt8]
        if let length = try head.headers.contentLength() {
            guard length <= rest.count else {
                throw SIPParseError(.invalidContentLength, "Content-Length \(length) but \(rest.count) body bytes")
            }
            body = Array(rest.prefix(length))
        } else {
            body = Array(rest)
        }
        return try head.message(body: body)
    }

    /// A parsed start line and header section.
    struct Head {
        enum StartLine {
            case request(SIPMethod, SIPURI)
            case response(Int, String)
        }
        var startLine: StartLine
        var headers: SIPHeaders

        func message(body: [UInt8]) throws(SIPParseError) -> SIPMessage {
            let message: SIPMessage
            switch startLine {
            case .request(let method, let uri):
                message = .request(SIPRequest(method: method, uri: uri, headers: headers, body: body))
            case .response(let code, let reason):
                message = .response(SIPResponse(statusCode: code, reasonPhrase: reason, headers: headers, body: body))
            }
            try SIPMessageParser.validate(message)
            return message
        }
    }

    /// Reads the start line and header fields up to and including the blank line.
    func parseHead(_ reader: inout SIPTextReader) throws(SIPParseError) -> Head {
        let headStart = reader.position
        guard let line = reader.readLine() else { throw SIPParseError(.truncated, "no complete start line") }
        let startLine = try SIPMessageParser.parseStartLine(line)
        var headers = SIPHeaders()
        var current: (name: String, value: [UInt8])?
        while true {
            guard reader.position - headStart <= limits.maximumHeaderSize else {
                throw SIPParseError(.tooLarge, "header section over \(limits.maximumHeaderSize) bytes")
            }
            guard let line = reader.readLine() else { throw SIPParseError(.truncated, "header section not terminated") }
            if line.isEmpty { break }
            if let first = line.first, SIPGrammar.isWhitespace(first) {
                guard current != nil else { throw SIPParseError(.invalidHeaderLine, "continuation before any header") }
                current?.value += [0x20] + SIPGrammar.trim(line)
                continue
            }
            if let done = current { try SIPMessageParser.append(done, to: &headers) }
            guard headers.count < limits.maximumHeaderCount else { throw SIPParseError(.tooLarge, "too many header fields") }
            var lineReader = SIPTextReader(Array(line))
            let name = lineReader.read(while: SIPGrammar.isToken)
            lineReader.skipWhitespace()
            guard !name.isEmpty, lineReader.consume(0x3A) else {
                throw SIPParseError(.invalidHeaderLine, "header line without a name and colon")
            }
            current = (String(decoding: name, as: UTF8.self), Array(SIPGrammar.trim(lineReader.readRest())))
        }
        if let done = current { try SIPMessageParser.append(done, to: &headers) }
        return Head(startLine: startLine, headers: headers)
    }

    private static func append(_ field: (name: String, value: [UInt8]), to headers: inout SIPHeaders) throws(SIPParseError) {
        guard let value = SIPGrammar.utf8String(SIPGrammar.trim(ArraySlice(field.value))) else {
            throw SIPParseError(.invalidEncoding, "header \(field.name) is not UTF-8")
        }
        headers.add(field.name, value)
    }

    static func parseStartLine(_ line: ArraySlice<UInt8>) throws(SIPParseError) -> Head.StartLine {
        var reader = SIPTextReader(Array(line))
        if reader.consumeCaseInsensitive("SIP/") {
            // Status-Line = SIP-Version SP Status-Code SP Reason-Phrase
            let version = reader.read(while: { $0 != 0x20 })
            guard version.elementsEqual("2.0".utf8) else {
                if version.contains(0x2E) { throw SIPParseError(.versionNotSupported, "SIP/\(String(decoding: version, as: UTF8.self))") }
                throw SIPParseError(.invalidStatusLine, "bad version")
            }
            guard reader.consume(0x20) else { throw SIPParseError(.invalidStatusLine, "missing status code") }
            let code = reader.read(while: SIPGrammar.isDigit)
            guard code.count == 3, let value = SIPGrammar.decimal(code, max: 699), value >= 100 else {
                throw SIPParseError(.invalidStatusLine, "status code must be three digits 100-699")
            }
            var reason = ""
            if reader.consume(0x20) {
                guard let text = SIPGrammar.utf8String(reader.readRest()) else {
                    throw SIPParseError(.invalidEncoding, "reason phrase is not UTF-8")
                }
                guard !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) else {
                    throw SIPParseError(.invalidStatusLine, "control character in reason phrase")
                }
                reason = text
            }
            guard reader.isAtEnd else { throw SIPParseError(.invalidStatusLine, "text after status code") }
            return .response(value, reason)
        }
        // Request-Line = Method SP Request-URI SP SIP-Version
        let methodBytes = reader.read(while: SIPGrammar.isToken)
        guard let method = SIPMethod(String(decoding: methodBytes, as: UTF8.self)), reader.consume(0x20) else {
            throw SIPParseError(.invalidRequestLine, "bad method or separator")
        }
        let uriBytes = reader.read(while: { $0 != 0x20 })
        guard reader.consume(0x20) else { throw SIPParseError(.invalidRequestLine, "expected SP SIP-Version") }
        let version = reader.readRest()
        guard version.count >= 4, SIPGrammar.lower(version[version.startIndex]) == 0x73,
            version.prefix(4).map(SIPGrammar.lower).elementsEqual("sip/".utf8)
        else {
            throw SIPParseError(.invalidRequestLine, "bad SIP-Version")
        }
        guard version.dropFirst(4).elementsEqual("2.0".utf8) else {
            let rest = version.dropFirst(4)
            if !rest.isEmpty, rest.allSatisfy({ SIPGrammar.isDigit($0) || $0 == 0x2E }) {
                throw SIPParseError(.versionNotSupported, String(decoding: version, as: UTF8.self))
            }
            throw SIPParseError(.invalidRequestLine, "bad SIP-Version")
        }
        let uri: SIPURI
        do { uri = try SIPURI.parse(uriBytes) } catch {
            throw SIPParseError(.invalidRequestLine, "Request-URI: \(error.detail)")
        }
        guard uri.headers.isEmpty else { throw SIPParseError(.invalidRequestLine, "headers are not allowed in a Request-URI") }
        return .request(method, uri)
    }

    /// Checks the header fields every request and response carries (RFC 3261 §8.1.1, §20).
    static func validate(_ message: SIPMessage) throws(SIPParseError) {
        let h = message.headers
        guard try !h.via().isEmpty else { throw SIPParseError(.missingHeader, "Via") }
        _ = try h.from()
        _ = try h.to()
        _ = try h.callID()
        let cseq = try h.cseq()
        _ = try h.maxForwards()
        _ = try h.contentType()
        _ = try h.contact()
        _ = try h.route()
        _ = try h.recordRoute()
        if let date = try h.single("date"), !date.hasSuffix(" GMT") {
            throw SIPParseError(.invalidHeaderValue, "Date must be in GMT")
        }
        if case .request(let request) = message, request.method != cseq.method {
            throw SIPParseError(.methodMismatch, "\(request.method) request with CSeq \(cseq.method)")
        }
    }
}
