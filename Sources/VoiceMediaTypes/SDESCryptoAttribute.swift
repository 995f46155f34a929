/// The value of an RFC 4568 `a=crypto` SDP attribute:
/// `<tag> <crypto-suite> inline:<key||salt>[|lifetime][|MKI:length] [<session-param> ...]`.
///
/// Session parameters (RFC 4568 §6.3) are handled as follows when parsing:
/// - `WSH=<n>` (window size hint, n ≥ 64) is accepted and preserved; see ``windowSizeHint``.
/// - Parameters starting with `-` are optional by definition (§6.3.7): preserved, not acted on.
/// - `KDR`, `UNENCRYPTED_SRTP`, `UNENCRYPTED_SRTCP`, `UNAUTHENTICATED_SRTP`, `FEC_ORDER` and
///   `FEC_KEY` are rejected with ``SDESError/unsupportedSessionParameter(_:)``: this library
///   neither weakens protection nor supports non-zero key derivation rates or FEC keys.
/// - Any other parameter is mandatory-but-unknown and makes the attribute invalid (§6.3.7):
///   ``SDESError/unknownSessionParameter(_:)``.
///
/// Only one key parameter per attribute is supported. Value type; safe to share between threads.
package struct SDESCryptoAttribute: Sendable, Equatable, CustomStringConvertible {
    /// The tag that names this offer line in the answer (0...999999999).
    package var tag: UInt32
    /// The key, its suite, and any lifetime and MKI.
    package var keyMaterial: SRTPKeyMaterial
    /// Session parameters in their original text, in order.
    package var sessionParameters: [String]

    /// Largest tag RFC 4568 allows (nine digits).
    package static let maxTag: UInt32 = 999_999_999

    /// The crypto suite (that of ``keyMaterial``).
    package var suite: SRTPSuite { keyMaterial.suite }

    /// Creates an attribute. `sessionParameters` are emitted as given.
    package init(tag: UInt32, keyMaterial: SRTPKeyMaterial, sessionParameters: [String] = []) {
        self.tag = tag
        self.keyMaterial = keyMaterial
        self.sessionParameters = sessionParameters
    }

    /// The replay window size the peer suggested with `WSH=<n>`, if any.
    package var windowSizeHint: Int? {
        for parameter in sessionParameters where parameter.hasPrefix("WSH=") {
            return Int(parameter.dropFirst(4))
        }
        return nil
    }

    /// The attribute value as it goes after `a=crypto:`. Contains the key: never log it.
    package var attributeValue: String {
        ([String(tag), suite.sdesName, keyMaterial.sdesKeyParameter] + sessionParameters).joined(separator: " ")
    }

    /// The attribute with the key redacted, safe to log.
    package var description: String {
        (["crypto:\(tag)", suite.sdesName, "inline:<redacted>"] + sessionParameters).joined(separator: " ")
    }

    /// Parses an attribute value, with or without a leading `a=crypto:` or `crypto:`.
    /// - Throws: ``SDESError`` describing the first problem found.
    package init(parsing text: String) throws(SDESError) {
        var utf8 = Array(text.utf8)
        defer { for i in utf8.indices { utf8[i] = 0 } }
        let parsed: Result<SDESCryptoAttribute, SDESError> = utf8.withUnsafeBytes { raw in
            var reader = SDESTextReader(raw)
            do throws(SDESError) {
                return .success(try Self.parse(&reader))
            } catch {
                return .failure(error)
            }
        }
        self = try parsed.get()
    }

    private static func parse(_ reader: inout SDESTextReader) throws(SDESError) -> SDESCryptoAttribute {
        if !reader.consume(prefix: "a=crypto:") { _ = reader.consume(prefix: "crypto:") }

        let tagField = reader.readField(until: SDESTextReader.isWhitespace)
        guard let tagValue = SDESTextReader.decimal(tagField, maxDigits: 9) else { throw .invalidTag }
        guard reader.skipWhitespace() > 0 else { throw .malformedAttribute }

        let suiteField = reader.readField(until: SDESTextReader.isWhitespace)
        let suiteName = String(decoding: suiteField, as: UTF8.self)
        guard !suiteName.isEmpty, reader.skipWhitespace() > 0 else { throw .malformedAttribute }
        guard let suite = SRTPSuite(sdesName: suiteName) else { throw .unknownSuite(suiteName) }

        let keyMaterial: SRTPKeyMaterial
        do throws(SRTPKeyMaterialError) {
            keyMaterial = try SRTPKeyMaterial.parseKeyParameter(&reader, suite: suite)
        } catch {
            throw .invalidKey(error)
        }
        if reader.peek == UInt8(ascii: ";") { throw .multipleKeysUnsupported }

        var parameters: [String] = []
        while !reader.isAtEnd {
            guard reader.skipWhitespace() > 0 else { throw .malformedAttribute }
            let field = reader.readField(until: SDESTextReader.isWhitespace)
            if field.isEmpty { break }
            let parameter = String(decoding: field, as: UTF8.self)
            try validateSessionParameter(parameter)
            parameters.append(parameter)
        }
        return SDESCryptoAttribute(tag: UInt32(tagValue), keyMaterial: keyMaterial, sessionParameters: parameters)
    }

    private static let unsupportedParameters = ["UNENCRYPTED_SRTP", "UNENCRYPTED_SRTCP", "UNAUTHENTICATED_SRTP"]
    private static let unsupportedParameterPrefixes = ["KDR=", "FEC_ORDER=", "FEC_KEY="]

    private static func validateSessionParameter(_ parameter: String) throws(SDESError) {
        if parameter.hasPrefix("-") { return }
        if parameter.hasPrefix("WSH=") {
            let digits = Array(parameter.utf8.dropFirst(4))
            let value = digits.withUnsafeBytes { SDESTextReader.decimal($0, maxDigits: 9) }
            guard let value, value >= 64 else { throw .invalidSessionParameter(parameter) }
            return
        }
        if unsupportedParameters.contains(parameter)
            || unsupportedParameterPrefixes.contains(where: { parameter.hasPrefix($0) })
        {
            throw .unsupportedSessionParameter(parameter)
        }
        throw .unknownSessionParameter(parameter)
    }
}
