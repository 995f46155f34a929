import VoiceMediaTypes
import VoiceSupport

/// Whether media must be encrypted, how its keys are exchanged, and with which SRTP suites.
package enum SDPEncryptionPolicy: Hashable, Sendable {
    /// SRTP with SDES keys (RFC 4568) is mandatory: offers use `RTP/SAVP` with one `a=crypto` per
    /// suite (in this order, the preferred first); plain `RTP/AVP` offers are refused.
    case srtp(suites: [SRTPSuite])
    /// Plain RTP (`RTP/AVP`), only when the application opts in; `RTP/SAVP` offers are refused.
    case unencrypted
    /// DTLS-SRTP as WebRTC peers use it (RFC 5763, RFC 5764, RFC 8827): offers use
    /// `UDP/TLS/RTP/SAVPF` with ICE, `a=rtcp-mux`, BUNDLE and our certificate's fingerprint (which
    /// need ``SDPLocalCapabilities/ice`` and ``SDPLocalCapabilities/dtlsFingerprint``); only
    /// DTLS offers (`UDP/TLS/RTP/SAVPF` or `UDP/TLS/RTP/SAVP`) are answered.
    case dtlsSRTP
    /// Offers as ``dtlsSRTP`` does; answers the key exchange the offer asks for: DTLS-SRTP, or
    /// SDES with `suites` as ``srtp(suites:)`` would. Plain `RTP/AVP` offers are refused. A
    /// session keyed by SDES stays so: our re-offers in it are SDES ones.
    case automatic(suites: [SRTPSuite])

    /// The default: SRTP with every suite, AEAD first. A caller whose SRTP library lacks some
    /// suites offers only the ones it has (VoiceCore offers what the linked libsrtp supports).
    package static var required: SDPEncryptionPolicy { .srtp(suites: SRTPSuite.preferredOrder) }
}
