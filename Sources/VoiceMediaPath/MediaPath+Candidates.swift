import VoiceAddress
import VoiceICE
import VoiceSupport

extension MediaPath {
    /// The peer's candidates that were names in its SDP, now resolved (`candidates` may be
    /// empty: none resolved). They go to the agent running with the peer's `usernameFragment`;
    /// an answer that comes after a restart changed it is for an agent that is gone, and is
    /// dropped. Relayed paths get permissions for the new addresses.
    package mutating func addRemoteCandidates(_ candidates: [ICECandidate], usernameFragment: String, now: MediaTime) -> [Effect] {
        guard !hasEnded, ice.agent?.remoteCredentials?.usernameFragment == usernameFragment else { return [] }
        let said = withAgent { $0.addRemoteCandidates(candidates, final: true, now: now) }
        figures.remoteCandidates += candidates.count
        if let pair = ice.agent?.selectedPair, figures.selectedPair != nil { figures.selectedPair = ICESelectedPair(pair) }
        var effects = performRemoteSet(said, now: now)
        if !hasEnded, !candidates.isEmpty { effects += permitRemoteCandidates(now: now) }
        return effects
    }
}

extension MediaPath {
    /// The host's usable addresses changed (rtnetlink, ahead of the move's re-INVITE): make
    /// before break on a connected path whose socket is bound to the wildcard
    /// (``ICEAgent/localAddressesChanged(_:port:now:)``): checks from a new address at once, and
    /// when the selected pair's address is gone and we control, a nomination from the new one;
    /// media follows when it is selected, keyed as before (the DTLS association is the same).
    /// The addresses are the host's by the kernel's word, so they may be named as a source at
    /// once. Nothing on a relay-only path (its relay moves with a reallocation), during a
    /// restart, or before a pair is selected.
    package mutating func localAddressesChanged(_ addresses: [IPAddress], now: MediaTime) -> [Effect] {
        guard !hasEnded, answersDirectChecks, localAddress.ip.isUnspecified else { return [] }
        switch ice {
        case .selected, .consentLost: break
        case .direct, .checking, .restarting: return []
        }
        for ip in addresses where !localAddressesSeen.contains(ip) {
            if localAddressesSeen.count >= 16 { localAddressesSeen.removeFirst() }
            localAddressesSeen.append(ip)
        }
        let port = base.port
        let said = withAgent { $0.localAddressesChanged(addresses, port: port, now: now) }
        return perform(said, now: now)
    }
}
