import VoiceBytes

extension SRTPKeyMaterial {
    /// Largest key lifetime accepted: 2^48 packets, the SRTP limit (RFC 3711 §9.2).
    package static let maxLifetime: UInt64 = 1 << 48

    /// Parses an RFC 4568 key parameter for `suite`:
    /// `inline:<base64(key||salt)>[|lifetime][|mki-value:mki-length]`.
    ///
    /// The lifetime is `2^n` or a decimal packet count (1...2^48). The MKI length is 1...128
    /// bytes and its value must fit in that many bytes; libsrtp carries it in every packet.
    /// - Throws: ``SRTPKeyMaterialError`` for a wrong key method, bad base64, wrong key length,
    ///   bad lifetime or MKI, or extra fields.
    package init(sdesKeyParameter text: String, suite: SRTPSuite) throws(SRTPKeyMaterialError) {
        var utf8 = Array(text.utf8)
        let parsed: Result<SRTPKeyMaterial, SRTPKeyMaterialError> = utf8.withUnsafeBytes { raw in
            var reader = SDESTextReader(raw)
            do throws(SRTPKeyMaterialError) {
                let material = try Self.parseKeyParameter(&reader, suite: suite)
                guard reader.isAtEnd else { throw .malformedKeyParameter }
                return .success(material)
            } catch {
                return .failure(error)
            }
        }
        for i in utf8.indices { utf8[i] = 0 }
        self = try parsed.get()
    }

    /// Reads one key parameter from `reader`, stopping at whitespace, `;` or the end.
    static func parseKeyParameter(_ reader: inout SDESTextReader, suite: SRTPSuite) throws(SRTPKeyMaterialError) -> SRTPKeyMaterial {
        guard reader.consume(prefix: "inline:") else { throw .unsupportedKeyMethod }
        let isEndOfParameter: (UInt8) -> Bool = { SDESTextReader.isWhitespace($0) || $0 == UInt8(ascii: ";") }
        let keyField = reader.readField(until: { $0 == UInt8(ascii: "|") || isEndOfParameter($0) })
        guard var decoded = try? Base64.decode(keyField, alphabet: .standard, allowsPadding: true, requiresCanonical: true) else {
            throw .invalidBase64
        }
        defer { for i in decoded.indices { decoded[i] = 0 } }
        var material = try SRTPKeyMaterial(suite: suite, keyAndSalt: decoded)

        var fields = 0
        while reader.consume(UInt8(ascii: "|")) {
            fields += 1
            let field = reader.readField(until: { $0 == UInt8(ascii: "|") || isEndOfParameter($0) })
            guard !field.isEmpty, fields <= 2 else { throw .malformedKeyParameter }
            if field.contains(UInt8(ascii: ":")) {
                guard material.mki == nil else { throw .malformedKeyParameter }
                material.mki = try parseMKI(field)
            } else {
                guard material.lifetime == nil, material.mki == nil else { throw .malformedKeyParameter }
                material.lifetime = try parseLifetime(field)
            }
        }
        return material
    }

    private static func parseLifetime(_ field: UnsafeRawBufferPointer) throws(SRTPKeyMaterialError) -> UInt64 {
        var reader = SDESTextReader(field)
        if reader.consume(prefix: "2^") {
            let exponentField = reader.readField(until: { _ in false })
            guard let exponent = SDESTextReader.decimal(exponentField, maxDigits: 2), exponent <= 48 else {
                throw .invalidLifetime
            }
            return 1 << exponent
        }
        guard let value = SDESTextReader.decimal(field), value >= 1, value <= maxLifetime else { throw .invalidLifetime }
        return value
    }

    private static func parseMKI(_ field: UnsafeRawBufferPointer) throws(SRTPKeyMaterialError) -> SRTPMasterKeyIdentifier {
        var reader = SDESTextReader(field)
        let valueField = reader.readField(until: { $0 == UInt8(ascii: ":") })
        _ = reader.consume(UInt8(ascii: ":"))
        let lengthField = reader.readField(until: { _ in false })
        guard let value = SDESTextReader.decimal(valueField),
            let length = SDESTextReader.decimal(lengthField, maxDigits: 3),
            let mki = SRTPMasterKeyIdentifier(value: value, length: Int(length))
        else { throw .invalidMKI }
        return mki
    }

    /// The RFC 4568 key parameter: `inline:<base64>` plus `|2^n` (or `|decimal`) and `|value:length`
    /// when set. Contains the key: never log it.
    package var sdesKeyParameter: String {
        var text = "inline:" + Base64.encode(keyAndSalt)
        if let lifetime {
            if lifetime.nonzeroBitCount == 1 {
                text += "|2^\(lifetime.trailingZeroBitCount)"
            } else {
                text += "|\(lifetime)"
            }
        }
        if let mki { text += "|\(mki)" }
        return text
    }
}
