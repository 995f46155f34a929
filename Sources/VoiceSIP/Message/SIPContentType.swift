/// A media type from Content-Type (RFC 3261 §20.15).
package struct SIPContentType: Sendable, Equatable, CustomStringConvertible {
    /// The type, lowercased (e.g. `application`).
    package var type: String
    /// The subtype, lowercased (e.g. `sdp`).
    package var subtype: String
    /// Media type parameters (e.g. `boundary`).
    package var parameters: SIPParameters

    /// Creates a media type.
    package init(type: String, subtype: String, parameters: SIPParameters = SIPParameters()) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = parameters
    }

    /// Parses `type/subtype *(;param)`.
    package init(parsing text: String) throws(SIPParseError) {
        var reader = SIPTextReader(text)
        reader.skipWhitespace()
        let t = reader.read(while: SIPGrammar.isToken)
        reader.skipWhitespace()
        guard !t.isEmpty, reader.consume(0x2F) else { throw SIPParseError(.invalidHeaderValue, "bad media type") }
        reader.skipWhitespace()
        let s = reader.read(while: SIPGrammar.isToken)
        guard !s.isEmpty else { throw SIPParseError(.invalidHeaderValue, "bad media subtype") }
        self.init(type: String(decoding: t, as: UTF8.self), subtype: String(decoding: s, as: UTF8.self))
        parameters = try SIPParameters.parseHeaderParameters(&reader)
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw SIPParseError(.invalidHeaderValue, "unexpected text in media type") }
    }

    /// `application/sdp`
    package static let sdp = SIPContentType(type: "application", subtype: "sdp")

    package var description: String { "\(type)/\(subtype)" + parameters.headerString }
}
