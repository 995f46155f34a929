/// Why an RFC 4568 `a=crypto` attribute was rejected.
package enum SDESError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The attribute is not `<tag> <crypto-suite> <key-params> [<session-param> ...]`.
    case malformedAttribute
    /// The tag is not 1 to 9 decimal digits.
    case invalidTag
    /// The crypto suite is not one this library implements (e.g. `F8_128_HMAC_SHA1_80`).
    case unknownSuite(String)
    /// More than one key parameter (`;`-separated); only a single master key per attribute is supported.
    case multipleKeysUnsupported
    /// The key parameter was rejected.
    case invalidKey(SRTPKeyMaterialError)
    /// A session parameter RFC 4568 defines but this library does not implement (`KDR`,
    /// `UNENCRYPTED_SRTP`, `UNENCRYPTED_SRTCP`, `UNAUTHENTICATED_SRTP`, `FEC_ORDER`, `FEC_KEY`).
    case unsupportedSessionParameter(String)
    /// An unknown mandatory session parameter (no leading `-`): RFC 4568 §6.3.7 makes the
    /// attribute invalid.
    case unknownSessionParameter(String)
    /// A known session parameter with an invalid value (e.g. `WSH` below 64).
    case invalidSessionParameter(String)

    /// A human-readable explanation.
    package var description: String {
        switch self {
        case .malformedAttribute: "a=crypto: malformed attribute"
        case .invalidTag: "a=crypto: invalid tag"
        case let .unknownSuite(name): "a=crypto: unsupported crypto suite \(name)"
        case .multipleKeysUnsupported: "a=crypto: more than one key parameter is not supported"
        case let .invalidKey(error): "a=crypto: \(error)"
        case let .unsupportedSessionParameter(p): "a=crypto: unsupported session parameter \(p)"
        case let .unknownSessionParameter(p): "a=crypto: unknown mandatory session parameter \(p)"
        case let .invalidSessionParameter(p): "a=crypto: invalid session parameter \(p)"
        }
    }
}
