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
