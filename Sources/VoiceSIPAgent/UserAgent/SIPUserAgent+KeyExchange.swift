import VoiceSIP
import VoiceSupport
extension SIPUserAgent {
    /// Whether SDES keys may travel to or from `host` over `transport` (RFC 4568 §8.3: only
    /// over signaling protected from eavesdroppers). TLS and secure WebSockets are; so is loopback, where the key never
    /// leaves the machine. Anything else needs
    /// ``SIPUserAgentConfiguration/allowsKeysOverUnencryptedSignaling``, and is logged once.
    func mayExchangeKeys(transport: SIPTransportProtocol, host: String) -> Bool {
        guard case .srtp = configuration.media.encryption else { return true }
        return maySendSDESKeys(transport: transport, host: host)
    }

    /// Whether SDES keys may travel over `transport` to `host`, whatever the policy: with
    /// ``SDPEncryptionPolicy/automatic(suites:)`` a call where they may not is a DTLS-SRTP call
    /// only (no SDES answer, no SDES retry after a 488).
    func maySendSDESKeys(transport: SIPTransportProtocol, host: String) -> Bool {
        if transport.isSecure || Self.isLoopback(host) { return true }
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

    /// The policy of one call: ``SDPEncryptionPolicy/automatic(suites:)`` narrows to DTLS-SRTP
    /// when SDES keys may not cross this call's signaling.
    func encryptionPolicy(transport: SIPTransportProtocol, host: String) -> SDPEncryptionPolicy {
        if case .automatic = configuration.media.encryption, !maySendSDESKeys(transport: transport, host: host) { return .dtlsSRTP }
        return configuration.media.encryption
    }

    /// As ``encryptionPolicy(transport:host:)``, judged on an outgoing call's first hop.
    func encryptionPolicy(callingTo remote: SIPURI) -> SDPEncryptionPolicy {
        let hop = configuration.outboundProxy ?? remote
        guard let target = try? resolver.target(for: hop) else { return configuration.media.encryption }
        return encryptionPolicy(transport: target.transport, host: target.host)
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return bare.hasPrefix("127.") || bare == "::1" || bare.lowercased() == "localhost"
    }
}
