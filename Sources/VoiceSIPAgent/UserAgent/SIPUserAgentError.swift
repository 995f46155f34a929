import VoiceSIP
import VoiceSupport
/// Misuse of the user agent's API.
package enum SIPUserAgentError: Error, Sendable, Equatable {
    /// The call handle is unknown or the call has ended.
    case noSuchCall
    /// No local UDP port could be reserved for media.
    case noMediaPort(String)
    /// No registrar is configured and the identity has no domain.
    case noRegistrar
    /// The call would send SRTP keys (SDES) over signaling that is neither TLS nor loopback,
    /// and ``SIPUserAgentConfiguration/allowsKeysOverUnencryptedSignaling`` is off.
    case keysNeedProtectedSignaling
}
