extension SIPCoreResponder {
    /// Largest malformed message the salvage reads, in bytes (the parser's default limit).
    package static let maximumSalvageSize = 65_535
    /// Most header lines the salvage reads.
    package static let maximumSalvageHeaderLines = 256

    /// The response to a request the parser rejected (RFC 3261 §8.2, §21.4.1, §21.5.6): the
    /// error's 400 or 505 and reason phrase, built when enough of the message survives to
    /// address one.
    ///
    /// The bytes must start with a request line whose method is a token other than ACK (a
    /// response or an ACK is never answered), and hold a Via whose first value parses, a From,
    /// a To, a Call-ID and a CSeq that parses. Every Via and the first of each of the others
    /// (and of Timestamp) are copied as received; every other line may be broken or repeated.
    /// Otherwise the result is nil: drop the message.
    ///
    /// - Parameters:
    ///   - bytes: the datagram or framed message as received.
    ///   - error: what the parser threw for it.
    ///   - toTag: the tag put in the To when it has none.
    package func answer(malformed bytes: [UInt8], error: SIPParseError, toTag: String) -> SIPResponse? {
        guard bytes.count <= Self.maximumSalvageSize else { return nil }
        var reader = SIPTextReader(bytes)
        guard let startLine = reader.readLine() else { return nil }
        var lineReader = SIPTextReader(Array(startLine))
        guard !lineReader.consumeCaseInsensitive("SIP/") else { return nil }
        let methodText = String(decoding: lineReader.read(while: SIPGrammar.isToken), as: UTF8.self)
        guard let method = SIPMethod(methodText), method != .ack, lineReader.consume(0x20) else { return nil }

        var fields: [(name: String, value: [UInt8])] = []
        var lines = 0
        while let line = reader.readLine(), !line.isEmpty {
            lines += 1
            guard lines <= Self.maximumSalvageHeaderLines else { return nil }
            if let first = line.first, SIPGrammar.isWhitespace(first) {
                if !fields.isEmpty { fields[fields.count - 1].value += [0x20] + SIPGrammar.trim(line) }
                continue
            }
            var fieldReader = SIPTextReader(Array(line))
            let name = fieldReader.read(while: SIPGrammar.isToken)
            fieldReader.skipWhitespace()
            guard !name.isEmpty, fieldReader.consume(0x3A) else { continue }
            fields.append((String(decoding: name, as: UTF8.self), Array(fieldReader.readRest())))
        }

        var headers = SIPHeaders()
        for field in fields {
            let name = SIPHeaders.canonicalName(field.name)
            // Every Via; the first of the single-valued fields (RFC 4475 §3.3.8 repeats them).
            guard Self.salvagedNames.contains(name), name == "via" || !headers.contains(name),
                let value = SIPGrammar.utf8String(SIPGrammar.trim(ArraySlice(field.value))), !value.isEmpty
            else { continue }
            headers.add(field.name, value)
        }
        guard let topVia = try? headers.values("via").first, Self.isAddressable(topVia),
            headers.contains("from"), headers.contains("to"), headers.contains("call-id"),
            let cseq = try? headers.cseq(), cseq.method != .ack
        else { return nil }

        let request = SIPRequest(method: method, uri: SIPURI(host: "invalid"), headers: headers)
        return response(to: request, statusCode: error.statusCode, reasonPhrase: error.reasonPhrase, toTag: toTag)
    }

    /// True when a Via value parses, allowing a SIP version other than 2.0 (the request being
    /// answered 505 may carry one, RFC 4475 §3.1.2.16).
    private static func isAddressable(_ via: String) -> Bool {
        do throws(SIPParseError) {
            _ = try SIPVia(parsing: via)
            return true
        } catch  where error.kind == .versionNotSupported {
            var reader = SIPTextReader(via)
            reader.skipWhitespace()
            guard reader.consumeCaseInsensitive("SIP/") else { return false }
            _ = reader.read(while: { SIPGrammar.isDigit($0) || $0 == 0x2E })
            return (try? SIPVia(parsing: "SIP/2.0" + String(decoding: reader.readRest(), as: UTF8.self))) != nil
        } catch {
            return false
        }
    }

    private static let salvagedNames: Set<String> = ["via", "from", "to", "call-id", "cseq", "timestamp"]
}
