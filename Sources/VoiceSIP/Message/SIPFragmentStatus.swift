/// The status line of a `message/sipfrag` body (RFC 3420), as a NOTIFY of a REFER's implicit
/// subscription carries it (RFC 3515 §2.4.5): `SIP/2.0 180 Ringing`. Header fields after it
/// are allowed and skipped.
package struct SIPFragmentStatus: Sendable, Hashable, CustomStringConvertible {
    /// The largest body read.
    package static let maximumSize = 4_096

    package var statusCode: Int
    package var reasonPhrase: String

    package init(statusCode: Int, reasonPhrase: String? = nil) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase ?? SIPResponse.standardReasonPhrase(for: statusCode)
    }

    /// Parses the first line of `body`: `SIP-Version SP Status-Code SP Reason-Phrase`, the code
    /// 100–699.
    package init(parsing body: [UInt8]) throws(SIPParseError) {
        guard body.count <= Self.maximumSize else { throw SIPParseError(.tooLarge, "sipfrag over \(Self.maximumSize) bytes") }
        var reader = SIPTextReader(body)
        guard let line = reader.readLine() ?? (body.isEmpty ? nil : body[...]) else {
            throw SIPParseError(.invalidStatusLine, "empty sipfrag")
        }
        var status = SIPTextReader(Array(line))
        let version = status.read(while: { $0 != 0x20 })
        guard version.elementsEqual("SIP/2.0".utf8), status.consume(0x20),
            let code = SIPGrammar.decimal(status.read(while: SIPGrammar.isDigit), max: 699), code >= 100
        else { throw SIPParseError(.invalidStatusLine, "sipfrag: not a SIP/2.0 status line") }
        let reason = status.consume(0x20) ? String(decoding: status.readRest(), as: UTF8.self) : ""
        guard !reason.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 }) else {
            throw SIPParseError(.invalidStatusLine, "sipfrag: control characters in the reason")
        }
        self.init(statusCode: code, reasonPhrase: reason)
    }

    /// The body: the status line and CRLF.
    package var body: [UInt8] { Array("SIP/2.0 \(statusCode) \(reasonPhrase)\r\n".utf8) }

    package var description: String { "SIP/2.0 \(statusCode) \(reasonPhrase)" }
}
