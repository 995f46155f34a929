import VoiceSIP
import VoiceSupport
extension SIPUserAgent {
    /// Whether SDES keys may travel to or from `host` over `transport` (RFC 4568 §8.3: only
    /// over signaling protected from eavesdroppers). TLS is; so is loopback, where the key never
    /// leaves the machine. Anything else needs
    /// ``SIPUserAgentConfiguration/allowsKeysOverUnencryptedSignaling``, and is logged once.
    func mayExchangeKeys(transport: SIPTransportProtocol, host: String) -> Bool {
        guard case .srtp = configuration.media.encryption else { return true }
        if transport == .tls || Self.isLoopback(host) { return true }
        guard configuration.allowsKeysOverUnencryptedSignaling else { return false }
        if !warnedAboutClearTextKeys {
            warnedAboutClearTextKeys = true
            logger.warning(
                "SRTP keys are exchanged over unencrypted \(transport) signaling with \(host): anyone on the path can read them and decrypt or forge the media. Use TLS.")
        }
        return true
    }

    /// Whether an outgoing call to `remote` may carry SDES keys: judged on its first hop (the
    /// outbound proxy, or the request URI).
    func mayExchangeKeys(callingTo remote: SIPURI) -> Bool {
        let hop = configuration.outboundProxy ?? remote
        guard let target = try? resolver.target(for: hop) else { return true }  // refused later, with its own error
        return mayExchangeKeys(transport: target.transport, host: target.host)
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return bare.hasPrefix("127.") || bare == "::1" || bare.lowercased() == "localhost"
    }
}
