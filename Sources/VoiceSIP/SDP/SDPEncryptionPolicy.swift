import VoiceMediaTypes
import VoiceSupport

/// Whether media must be encrypted, and with which SRTP suites.
package enum SDPEncryptionPolicy: Hashable, Sendable {
    /// SRTP with SDES keys (RFC 4568) is mandatory: offers use `RTP/SAVP` with one `a=crypto` per
    /// suite (in this order, the preferred first); plain `RTP/AVP` offers are refused.
    case srtp(suites: [SRTPSuite])
    /// Plain RTP (`RTP/AVP`), only when the application opts in; `RTP/SAVP` offers are refused.
    case unencrypted

    /// The default: SRTP with every suite, AEAD first. A caller whose SRTP library lacks some
    /// suites offers only the ones it has (VoiceCore offers what the linked libsrtp supports).
    package static var required: SDPEncryptionPolicy { .srtp(suites: SRTPSuite.preferredOrder) }
}
