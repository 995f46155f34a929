/// An SRTP protection profile as named in SDP security descriptions (RFC 4568, RFC 6188, RFC 7714).
///
/// Each suite fixes the master key and salt lengths that its key material must have and the
/// authentication tag SRTP appends to every packet.
package enum SRTPSuite: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `AES_CM_128_HMAC_SHA1_80` (RFC 4568): AES-128 counter mode, 80-bit HMAC-SHA1 tag.
    case aesCM128HmacSHA1_80
    /// `AES_CM_128_HMAC_SHA1_32` (RFC 4568): as above with a 32-bit SRTP tag (SRTCP keeps 80 bits).
    case aesCM128HmacSHA1_32
    /// `AES_256_CM_HMAC_SHA1_80` (RFC 6188): AES-256 counter mode, 80-bit HMAC-SHA1 tag.
    case aes256CMHmacSHA1_80
    /// `AES_256_CM_HMAC_SHA1_32` (RFC 6188): as above with a 32-bit SRTP tag (SRTCP keeps 80 bits).
    case aes256CMHmacSHA1_32
    /// `AEAD_AES_128_GCM` (RFC 7714): AES-128 GCM, 128-bit tag.
    case aeadAES128GCM
    /// `AEAD_AES_256_GCM` (RFC 7714): AES-256 GCM, 128-bit tag.
    case aeadAES256GCM

    /// The name used in `a=crypto` lines, e.g. `AES_CM_128_HMAC_SHA1_80`.
    package var sdesName: String {
        switch self {
        case .aesCM128HmacSHA1_80: "AES_CM_128_HMAC_SHA1_80"
        case .aesCM128HmacSHA1_32: "AES_CM_128_HMAC_SHA1_32"
        case .aes256CMHmacSHA1_80: "AES_256_CM_HMAC_SHA1_80"
        case .aes256CMHmacSHA1_32: "AES_256_CM_HMAC_SHA1_32"
        case .aeadAES128GCM: "AEAD_AES_128_GCM"
        case .aeadAES256GCM: "AEAD_AES_256_GCM"
        }
    }

    /// The suite with the given `a=crypto` name (case-sensitive, as RFC 4568 registers them), or nil.
    package init?(sdesName: String) {
        guard let suite = Self.allCases.first(where: { $0.sdesName == sdesName }) else { return nil }
        self = suite
    }

    /// Master key length in bytes.
    package var masterKeyLength: Int {
        switch self {
        case .aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32, .aeadAES128GCM: 16
        case .aes256CMHmacSHA1_80, .aes256CMHmacSHA1_32, .aeadAES256GCM: 32
        }
    }

    /// Master salt length in bytes: 14 for counter mode (RFC 3711), 12 for GCM (RFC 7714).
    package var masterSaltLength: Int {
        switch self {
        case .aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32, .aes256CMHmacSHA1_80, .aes256CMHmacSHA1_32: 14
        case .aeadAES128GCM, .aeadAES256GCM: 12
        }
    }

    /// Master key plus master salt: the length of the `inline:` key material.
    package var keyMaterialLength: Int { masterKeyLength + masterSaltLength }

    /// Authentication tag length in bytes appended to each SRTP packet.
    package var authTagLength: Int {
        switch self {
        case .aesCM128HmacSHA1_80, .aes256CMHmacSHA1_80: 10
        case .aesCM128HmacSHA1_32, .aes256CMHmacSHA1_32: 4
        case .aeadAES128GCM, .aeadAES256GCM: 16
        }
    }

    /// Authentication tag length in bytes on SRTCP packets. The `_32` suites still use an
    /// 80-bit tag for SRTCP (RFC 4568 §6.2.1, RFC 6188 §4).
    package var rtcpAuthTagLength: Int {
        switch self {
        case .aesCM128HmacSHA1_32, .aes256CMHmacSHA1_32: 10
        default: authTagLength
        }
    }

    /// Bytes SRTP adds to an RTP packet (tag, plus `mkiLength` when an MKI is carried).
    package func rtpTrailerLength(mkiLength: Int = 0) -> Int { authTagLength + mkiLength }

    /// Bytes SRTCP adds to an RTCP packet: the 4-byte E flag and index, the tag, and any MKI.
    package func rtcpTrailerLength(mkiLength: Int = 0) -> Int { 4 + rtcpAuthTagLength + mkiLength }

    /// Suites in the order an offer should list them: AEAD first, then 80-bit tags, then the
    /// short-tag suites, 256-bit keys before 128-bit at each step.
    package static let preferredOrder: [SRTPSuite] = [
        .aeadAES256GCM, .aeadAES128GCM,
        .aes256CMHmacSHA1_80, .aesCM128HmacSHA1_80,
        .aes256CMHmacSHA1_32, .aesCM128HmacSHA1_32,
    ]

    /// The SDES name, e.g. `AEAD_AES_128_GCM`.
    package var description: String { sdesName }
}
