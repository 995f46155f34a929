import CVoiceDTLS
import VoiceMediaTypes

extension DTLSSRTPKeys {
    /// The SRTP suite for a `use_srtp` profile id, or nil for one we do not use.
    package static func suite(forProfile id: Int32) -> SRTPSuite? {
        switch id {
        case VOICE_DTLS_SRTP_AES128_CM_SHA1_80: .aesCM128HmacSHA1_80
        case VOICE_DTLS_SRTP_AES128_CM_SHA1_32: .aesCM128HmacSHA1_32
        case VOICE_DTLS_SRTP_AEAD_AES_128_GCM: .aeadAES128GCM
        case VOICE_DTLS_SRTP_AEAD_AES_256_GCM: .aeadAES256GCM
        default: nil
        }
    }
}
