/// Splits a TCP or TLS byte stream into SIP messages by Content-Length (RFC 3261 §18.3).
///
/// Feed received bytes with ``append(_:)`` and pull messages with ``next()`` until it returns nil.
/// A double CRLF between messages is reported as a keep-alive ping (RFC 5626 §3.5.1) so the
/// transport can answer with a single CRLF, and a single CRLF as that answer (a pong). A message without
/// Content-Length is an error on a stream; a framed message that does not validate is handed
/// out as ``Frame/malformed(_:bytes:)`` and the stream goes on. Not thread-safe: owned by one connection.
package struct SIPStreamFramer {
    /// What the stream produced.
    package enum Frame: Sendable, Equatable {
        /// A complete message.
        case message(SIPMessage)
        /// A CRLFCRLF keep-alive ping.
        case keepAlivePing
        /// A single CRLF: the answer to our ping (RFC 5626 §4.4.1).
        case keepAlivePong
        /// A message whose framing (start line, header section, Content-Length) is intact but
        /// that does not validate (a bad CSeq, a missing mandatory header…): its bytes, for a
        /// 400. The stream stays in step and goes on with the next message.
        case malformed(SIPParseError, bytes: [UInt8])
    }

    /// The parser and its limits.
    package let parser: SIPMessageParser
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the end of the header section resumes: bytes before it were
    /// searched already, so a message arriving a byte at a time costs linear, not quadratic, work.
    private var searchFrom = 0
    /// Once a header section has been read, where its message ends (absolute in `buffer`).
    private var messageEnd: Int?
    /// How many times a header section was parsed (for tests of the linear-work property).
    private(set) var headParses = 0

    /// Creates a framer.
    package init(parser: SIPMessageParser = SIPMessageParser()) { self.parser = parser }

    /// Bytes received but not yet framed.
    package var bufferedByteCount: Int { buffer.count - start }

    /// Removes and returns the bytes not yet framed, at most the parser's message size limit
    /// (what is left of a corrupt stream, for salvaging a 400 response).
    package mutating func drainBuffered() -> [UInt8] {
        let end = min(buffer.count, start + parser.limits.maximumMessageSize)
        let rest = Array(buffer[start..<end])
        buffer.removeAll(keepingCapacity: false)
        start = 0
        return rest
    }

    /// Appends received bytes.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            searchFrom = max(0, searchFrom - start)
            messageEnd = messageEnd.map { $0 - start }
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next frame, nil when more bytes are needed; throws when the stream is corrupt
    /// (the connection should then be closed).
    package mutating func next() throws(SIPParseError) -> Frame? {
        var crlfs = 0
        while start < buffer.count, buffer[start] == 0x0D || buffer[start] == 0x0A {
            if buffer[start] == 0x0A { crlfs += 1 }
            start += 1
        }
        if crlfs >= 2 { return .keepAlivePing }
        if crlfs == 1 { return .keepAlivePong }
        guard start < buffer.count else { return nil }
        if let messageEnd, buffer.count < messageEnd { return nil }  // the body is still arriving
        if messageEnd == nil, !findHeaderEnd() {
            guard bufferedByteCount <= parser.limits.maximumHeaderSize else {
                throw SIPParseError(.tooLarge, "header section over \(parser.limits.maximumHeaderSize) bytes")
            }
            return nil
        }
        headParses += 1
        var reader = SIPTextReader(Array(buffer[start...]))
        let head: SIPMessageParser.Head
        do {
            head = try parser.parseHead(&reader)
        } catch  where error.kind == .truncated {
            searchFrom = buffer.count  // wait for another empty line before parsing again
            guard bufferedByteCount <= parser.limits.maximumHeaderSize else {
                throw SIPParseError(.tooLarge, "header section over \(parser.limits.maximumHeaderSize) bytes")
            }
            return nil
        }
        guard let length = try head.headers.contentLength() else {
            throw SIPParseError(.invalidContentLength, "Content-Length is required on a stream")
        }
        guard reader.position + length <= parser.limits.maximumMessageSize else {
            throw SIPParseError(.tooLarge, "message of \(reader.position + length) bytes")
        }
        guard reader.remaining >= length else {
            messageEnd = start + reader.position + length
            return nil
        }
        let body = Array(reader.bytes[reader.position..<(reader.position + length)])
        let end = reader.position + length
        start += end
        messageEnd = nil
        searchFrom = start
        do {
            return .message(try head.message(body: body))
        } catch {
            return .malformed(error, bytes: Array(reader.bytes[0..<end]))
        }
    }

    /// Whether the header section's end (an empty line: LF, optional CR, LF) has arrived,
    /// searching only bytes not searched before.
    private mutating func findHeaderEnd() -> Bool {
        var i = max(searchFrom, start)
        while i < buffer.count {
            if buffer[i] == 0x0A {
                var j = i + 1
                if j < buffer.count, buffer[j] == 0x0D { j += 1 }
                if j < buffer.count, buffer[j] == 0x0A {
                    searchFrom = i
                    return true
                }
                if j >= buffer.count {  // the line may end in the next bytes
                    searchFrom = i
                    return false
                }
            }
            i += 1
        }
        searchFrom = buffer.count
        return false
    }
}

@available(*, unavailable)
extension SIPStreamFramer: Sendable {}
