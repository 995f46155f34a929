extension SDPSessionDescription {
    /// Parses SDP text.
    ///
    /// Strict where it matters for interoperability and safety: `v=0`, `o=`, `s=` must open the
    /// body in that order, at least one `t=` is required, every media section with a non-zero port
    /// needs a `c=` (its own or the session's), lines follow RFC 8866's order, unknown type letters
    /// reject the body (§5), and the attributes this stack acts on must be well formed. Lines may
    /// end in CRLF or LF; empty lines are accepted only at the end.
    /// - Throws: ``SDPParseError`` for the first problem found.
    package init(parsing text: String, limits: SDPParserLimits = .default) throws(SDPParseError) {
        guard text.utf8.count <= limits.maxBodyBytes else {
            throw SDPParseError(.bodyTooLarge, line: 0, detail: "\(text.utf8.count) bytes")
        }
        var parser = SDPSessionParser(limits: limits)
        self = try parser.parse(Array(text.utf8))
    }

    /// Parses SDP from raw bytes (e.g. a SIP message body); see ``init(parsing:limits:)``.
    /// - Throws: ``SDPParseError`` for the first problem found.
    package init(parsing bytes: [UInt8], limits: SDPParserLimits = .default) throws(SDPParseError) {
        guard bytes.count <= limits.maxBodyBytes else {
            throw SDPParseError(.bodyTooLarge, line: 0, detail: "\(bytes.count) bytes")
        }
        var parser = SDPSessionParser(limits: limits)
        self = try parser.parse(bytes)
    }
}

/// The line-by-line parser behind ``SDPSessionDescription/init(parsing:limits:)``.
struct SDPSessionParser {
    let limits: SDPParserLimits
    /// Rank of the last session-level line, enforcing RFC 8866's order.
    private var sessionRank = 0
    private var mediaRank = 0
    private var lineNumber = 0

    init(limits: SDPParserLimits) { self.limits = limits }

    private static let sessionRanks: [Character: Int] = [
        "i": 3, "u": 4, "e": 5, "p": 6, "c": 7, "b": 8, "t": 9, "r": 10, "z": 11, "k": 12, "a": 13,
    ]
    private static let mediaRanks: [Character: Int] = ["i": 1, "c": 2, "b": 3, "k": 4, "a": 5]
    private static let repeatable: Set<Character> = ["e", "p", "b", "t", "r", "a"]

    mutating func parse(_ bytes: [UInt8]) throws(SDPParseError) -> SDPSessionDescription {
        var reader = SDPTextReader(bytes)
        var lines: [(number: Int, type: Character, value: Substring)] = []
        var sawBlank = false
        while let result = reader.readLine(maxLength: limits.maxLineBytes) {
            lineNumber += 1
            guard lineNumber <= limits.maxLines else { throw SDPParseError(.tooManyItems, line: lineNumber, detail: "lines") }
            guard case let .success(line) = result else { throw SDPParseError(.lineTooLong, line: lineNumber) }
            if line.isEmpty {
                sawBlank = true
                continue
            }
            let text = Substring(decoding: line, as: UTF8.self)
            guard !sawBlank else { throw SDPParseError(.malformedLine, line: lineNumber - 1, detail: "empty line") }
            guard !line.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\r") }) else {
                throw SDPParseError(.malformedLine, line: lineNumber, detail: "control character")
            }
            var lineReader = SDPTextReader(text)
            guard let typeByte = lineReader.readByte(), lineReader.consume(UInt8(ascii: "=")),
                typeByte >= UInt8(ascii: "a"), typeByte <= UInt8(ascii: "z")
            else { throw SDPParseError(.malformedLine, line: lineNumber, detail: String(text)) }
            lines.append((lineNumber, Character(Unicode.Scalar(typeByte)), lineReader.readRest()))
        }
        guard let first = lines.first else { throw SDPParseError(.empty, line: 0) }
        guard first.type == "v" else { throw SDPParseError(.missingVersion, line: first.number) }
        guard first.value == "0" else { throw SDPParseError(.unsupportedVersion, line: first.number, detail: String(first.value)) }
        guard lines.count > 1, lines[1].type == "o" else {
            throw SDPParseError(.missingOrigin, line: lines.count > 1 ? lines[1].number : 1)
        }
        let origin = try parseOrigin(lines[1].value, line: lines[1].number)
        guard lines.count > 2, lines[2].type == "s" else {
            throw SDPParseError(.missingSessionName, line: lines.count > 2 ? lines[2].number : 2)
        }
        var session = SDPSessionDescription(origin: origin, sessionName: String(lines[2].value), timings: [])
        var mediaLines: [Int] = []

        for entry in lines.dropFirst(3) {
            let (number, type, value) = entry
            if type == "m" {
                guard session.media.count < limits.maxMediaSections else {
                    throw SDPParseError(.tooManyItems, line: number, detail: "media sections")
                }
                session.media.append(try parseMedia(value, line: number))
                mediaLines.append(number)
                mediaRank = 0
                continue
            }
            if var media = session.media.popLast() {
                try checkOrder(type, rank: &mediaRank, ranks: Self.mediaRanks, line: number)
                try apply(type, value, line: number, to: &media)
                session.media.append(media)
            } else {
                try checkOrder(type, rank: &sessionRank, ranks: Self.sessionRanks, line: number)
                try apply(type, value, line: number, to: &session)
            }
        }
        guard !session.timings.isEmpty else { throw SDPParseError(.missingTiming, line: 0) }
        for (media, number) in zip(session.media, mediaLines) where media.port != 0 && session.connection(of: media) == nil {
            throw SDPParseError(.missingConnection, line: number, detail: media.mediaLineValue)
        }
        return session
    }

    private func checkOrder(_ type: Character, rank: inout Int, ranks: [Character: Int], line: Int) throws(SDPParseError) {
        guard let next = ranks[type] else {
            if "vosm".contains(type) || Self.sessionRanks[type] != nil {
                throw SDPParseError(.misplacedLine, line: line, detail: "\(type)=")
            }
            throw SDPParseError(.unknownLineType, line: line, detail: "\(type)=")
        }
        // A new t= may follow the r= lines of the previous one.
        let restartsTiming = type == "t" && rank == ranks["r"]
        guard next > rank || (next == rank && Self.repeatable.contains(type)) || restartsTiming else {
            throw SDPParseError(.misplacedLine, line: line, detail: "\(type)=")
        }
        rank = next
    }

    private func apply(
        _ type: Character, _ value: Substring, line: Int,
        to session: inout SDPSessionDescription
    ) throws(SDPParseError) {
        switch type {
        case "i": session.information = String(value)
        case "u": session.uri = String(value)
        case "e": session.emails.append(String(value))
        case "p": session.phones.append(String(value))
        case "c": session.connection = try parseConnection(value, line: line)
        case "b": session.bandwidths.append(try parseBandwidth(value, line: line))
        case "t": session.timings.append(try parseTiming(value, line: line))
        case "r":
            guard !session.timings.isEmpty else { throw SDPParseError(.misplacedLine, line: line, detail: "r= before t=") }
            session.timings[session.timings.count - 1].repeats.append(String(value))
        case "z": session.timeZones = String(value)
        case "k": session.encryptionKey = String(value)
        default:
            guard session.attributes.count < limits.maxAttributesPerSection else {
                throw SDPParseError(.tooManyItems, line: line, detail: "attributes")
            }
            session.attributes.append(try parseAttribute(value, line: line))
        }
    }

    private func apply(
        _ type: Character, _ value: Substring, line: Int,
        to media: inout SDPMediaDescription
    ) throws(SDPParseError) {
        switch type {
        case "i": media.information = String(value)
        case "c": media.connection = try parseConnection(value, line: line)
        case "b": media.bandwidths.append(try parseBandwidth(value, line: line))
        case "k": media.encryptionKey = String(value)
        default:
            guard media.attributes.count < limits.maxAttributesPerSection else {
                throw SDPParseError(.tooManyItems, line: line, detail: "attributes")
            }
            media.attributes.append(try parseAttribute(value, line: line))
        }
    }

    private func parseOrigin(_ value: Substring, line: Int) throws(SDPParseError) -> SDPOrigin {
        var reader = SDPTextReader(value)
        var fields: [Substring] = []
        while !reader.isAtEnd, fields.count < 6 {
            let token = reader.readToken()
            guard !token.isEmpty else { throw SDPParseError(.invalidOrigin, line: line, detail: String(value)) }
            fields.append(token)
            if !reader.isAtEnd, !reader.consumeSpace() { break }
        }
        guard fields.count == 6, reader.isAtEnd,
            (1...32).contains(fields[1].count), fields[1].allSatisfy(\.isASCIIDigit),
            let version = SDPTextReader.decimal(fields[2], maxDigits: 19)
        else { throw SDPParseError(.invalidOrigin, line: line, detail: String(value)) }
        return SDPOrigin(
            username: String(fields[0]), sessionID: String(fields[1]), sessionVersion: version,
            networkType: String(fields[3]), addressType: String(fields[4]), address: String(fields[5]))
    }

    private func parseConnection(_ value: Substring, line: Int) throws(SDPParseError) -> SDPConnection {
        guard let connection = SDPConnection(parsing: value) else {
            throw SDPParseError(.invalidConnection, line: line, detail: String(value))
        }
        return connection
    }

    private func parseBandwidth(_ value: Substring, line: Int) throws(SDPParseError) -> SDPBandwidth {
        var reader = SDPTextReader(value)
        guard let type = reader.readUntil(UInt8(ascii: ":")), !type.isEmpty, !type.contains(" "),
            let amount = reader.readDecimal(maxDigits: 12), reader.isAtEnd
        else { throw SDPParseError(.invalidBandwidth, line: line, detail: String(value)) }
        return SDPBandwidth(type: String(type), bandwidth: amount)
    }

    private func parseTiming(_ value: Substring, line: Int) throws(SDPParseError) -> SDPTiming {
        var reader = SDPTextReader(value)
        guard let start = reader.readDecimal(maxDigits: 19), reader.consumeSpace(),
            let stop = reader.readDecimal(maxDigits: 19), reader.isAtEnd
        else { throw SDPParseError(.invalidTiming, line: line, detail: String(value)) }
        return SDPTiming(start: start, stop: stop)
    }

    private func parseMedia(_ value: Substring, line: Int) throws(SDPParseError) -> SDPMediaDescription {
        var reader = SDPTextReader(value)
        let media = reader.readToken()
        guard !media.isEmpty, reader.consumeSpace() else { throw SDPParseError(.invalidMedia, line: line, detail: String(value)) }
        let portField = reader.readToken()
        var portReader = SDPTextReader(portField)
        guard let port = portReader.readDecimal(maxDigits: 5), port <= 65535 else {
            throw SDPParseError(.invalidPort, line: line, detail: String(value))
        }
        var portCount: Int?
        if portReader.consume(UInt8(ascii: "/")) {
            guard let count = portReader.readDecimal(maxDigits: 5), count > 0 else {
                throw SDPParseError(.invalidPort, line: line, detail: String(value))
            }
            portCount = Int(count)
        }
        guard portReader.isAtEnd else { throw SDPParseError(.invalidPort, line: line, detail: String(value)) }
        guard reader.consumeSpace() else { throw SDPParseError(.invalidMedia, line: line, detail: String(value)) }
        let proto = reader.readToken()
        guard !proto.isEmpty else { throw SDPParseError(.invalidMedia, line: line, detail: String(value)) }
        var formats: [String] = []
        while reader.consumeSpace() {
            let format = reader.readToken()
            guard !format.isEmpty else { throw SDPParseError(.invalidMedia, line: line, detail: String(value)) }
            guard formats.count < limits.maxFormatsPerMedia else {
                throw SDPParseError(.tooManyItems, line: line, detail: "formats")
            }
            formats.append(String(format))
        }
        guard reader.isAtEnd, !formats.isEmpty else { throw SDPParseError(.invalidMedia, line: line, detail: String(value)) }
        if proto.uppercased().hasPrefix("RTP/") {
            for format in formats {
                guard let pt = SDPTextReader.decimal(Substring(format), maxDigits: 3), pt <= 127 else {
                    throw SDPParseError(.invalidMedia, line: line, detail: "payload type \(format)")
                }
            }
        }
        return SDPMediaDescription(
            media: String(media), port: UInt16(port), portCount: portCount,
            proto: String(proto), formats: formats)
    }

    private func parseAttribute(_ value: Substring, line: Int) throws(SDPParseError) -> SDPAttribute {
        var reader = SDPTextReader(value)
        let name: Substring
        var attributeValue: Substring?
        if let head = reader.readUntil(UInt8(ascii: ":")) {
            name = head
            attributeValue = reader.readRest()
        } else {
            name = reader.readRest()
        }
        guard !name.isEmpty, !name.contains(" ") else {
            throw SDPParseError(.invalidAttribute, line: line, detail: String(value))
        }
        let valid: Bool =
            switch name {
            case "rtpmap": attributeValue.flatMap { SDPRTPMap(parsing: $0) } != nil
            case "fmtp": attributeValue.flatMap { SDPFormatParameters(parsing: $0) } != nil
            case "ptime", "maxptime": attributeValue.flatMap { SDPMediaDescription.milliseconds(String($0)) } != nil
            case "rtcp": attributeValue.flatMap { SDPRTCPAttribute(parsing: $0) } != nil
            case "sendrecv", "sendonly", "recvonly", "inactive", "rtcp-mux": attributeValue == nil
            default: true
            }
        guard valid else { throw SDPParseError(.invalidAttribute, line: line, detail: String(value)) }
        return SDPAttribute(name: String(name), value: attributeValue.map(String.init))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
