/// Why SRTP key material, or its RFC 4568 `inline:` text, was rejected.
package enum SRTPKeyMaterialError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Key plus salt is not the length the suite requires.
    case wrongLength(suite: SRTPSuite, expected: Int, actual: Int)
    /// The key method is not `inline` (the only method RFC 4568 defines for SRTP).
    case unsupportedKeyMethod
    /// The key-salt field is not canonical base64.
    case invalidBase64
    /// The lifetime field is not `2^n` or a decimal count in 1...2^48.
    case invalidLifetime
    /// The MKI field is not `value:length`, its length is outside 1...128 bytes, or the value
    /// does not fit in that many bytes.
    case invalidMKI
    /// Extra or empty `|`-separated fields after the key.
    case malformedKeyParameter

    /// A human-readable explanation (never includes key bytes).
    package var description: String {
        switch self {
        case let .wrongLength(suite, expected, actual):
            "SRTP key material for \(suite) must be \(expected) bytes, got \(actual)"
        case .unsupportedKeyMethod: "SRTP key parameter: only the inline key method is supported"
        case .invalidBase64: "SRTP key parameter: key-salt is not valid base64"
        case .invalidLifetime: "SRTP key parameter: invalid key lifetime"
        case .invalidMKI: "SRTP key parameter: invalid or unsupported MKI"
        case .malformedKeyParameter: "SRTP key parameter: malformed"
        }
    }
}
