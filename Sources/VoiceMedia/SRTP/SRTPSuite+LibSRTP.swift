import CLibSRTP
import VoiceSupport
import VoiceMediaTypes

extension SRTPSuite {
    /// Whether the linked libsrtp can create a session with this suite (GCM and AES-256 need a
    /// crypto backend such as NSS or OpenSSL). Probed once per process; thread-safe.
    package var isAvailable: Bool { SRTPLibrary.availableSuites.contains(self) }

    /// The suites this process's libsrtp supports, in ``preferredOrder``.
    package static var available: [SRTPSuite] { preferredOrder.filter(\.isAvailable) }

    /// Fills libsrtp's RTP and RTCP crypto policies for this suite.
    func configure(rtp: inout srtp_crypto_policy_t, rtcp: inout srtp_crypto_policy_t) {
        switch self {
        case .aesCM128HmacSHA1_80:
            srtp_crypto_policy_set_rtp_default(&rtp)
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aesCM128HmacSHA1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aes256CMHmacSHA1_80:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aes256CMHmacSHA1_32:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtcp)
        }
    }
}
