import Crypto
import VoiceSupport

/// A Digest hash algorithm (RFC 7616 §3.2; RFC 8760 for SIP).
package enum DigestAlgorithm: String, Hashable, Sendable, CaseIterable {
    /// MD5, the default when a challenge names none.
    case md5 = "MD5"
    /// MD5 with the session variant of HA1.
    case md5Sess = "MD5-sess"
    /// SHA-256.
    case sha256 = "SHA-256"
    /// SHA-256 with the session variant of HA1.
    case sha256Sess = "SHA-256-sess"

    /// Parses an `algorithm=` value, case-insensitively. Returns nil for algorithms this
    /// stack does not implement (e.g. SHA-512-256).
    package init?(token: String) {
        switch token.lowercased() {
        case "md5": self = .md5
        case "md5-sess": self = .md5Sess
        case "sha-256": self = .sha256
        case "sha-256-sess": self = .sha256Sess
        default: return nil
        }
    }

    /// True for the `-sess` variants, whose HA1 also covers the nonce and cnonce.
    package var isSession: Bool { self == .md5Sess || self == .sha256Sess }

    /// Preference when one realm offers several challenges (RFC 7616 §3.7: strongest first).
    var strength: Int {
        switch self {
        case .md5, .md5Sess: return 1
        case .sha256, .sha256Sess: return 2
        }
    }

    /// The lowercase hex digest of `text`'s UTF-8 bytes.
    package func hexDigest(_ text: String) -> String {
        hexDigest(bytes: Array(text.utf8))
    }

    /// The lowercase hex digest of `bytes`.
    package func hexDigest(bytes: [UInt8]) -> String {
        switch self {
        case .md5, .md5Sess: return Self.hex(Insecure.MD5.hash(data: bytes))
        case .sha256, .sha256Sess: return Self.hex(SHA256.hash(data: bytes))
        }
    }

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
