import VoiceSIP
import VoiceSupport
/// Misuse of the user agent's API.
package enum SIPUserAgentError: Error, Sendable, Equatable {
    /// The call handle is unknown or the call has ended.
    case noSuchCall
    /// No local UDP port could be reserved for media.
    case noMediaPort(String)
    /// The relay-only candidate policy is set and the TURN server gave no relay (it refused the
    /// credentials, or did not answer): the call could only reveal our own addresses.
    case noRelay(String)
    /// No registrar is configured and the identity has no domain.
    case noRegistrar
    /// The call would send SRTP keys (SDES) over signaling that is neither TLS nor loopback,
    /// and ``SIPUserAgentConfiguration/allowsKeysOverUnencryptedSignaling`` is off.
    case keysNeedProtectedSignaling
}
