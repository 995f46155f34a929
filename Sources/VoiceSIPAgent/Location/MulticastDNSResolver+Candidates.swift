import VoiceDNS
import VoiceICE
import VoiceSIP

extension MulticastDNSResolver {
    /// Resolves the `.local` names among a peer's SDP candidates: `completion` gets those that
    /// resolved as ICE candidates at their addresses (maybe none), on the resolver's thread,
    /// within `timeout`. Nothing is asked, and `completion` is not called, when none is a name.
    /// - Returns: whether any candidate was a name (a lookup started).
    @discardableResult
    package func resolve(
        candidates: [SDPICECandidate], timeout: Duration = .seconds(1), completion: @escaping @Sendable ([ICECandidate]) -> Void
    ) -> Bool {
        let named = candidates.filter { $0.multicastDNSName != nil }
        guard !named.isEmpty else { return false }
        resolve(named.compactMap(\.multicastDNSName), timeout: timeout) { resolved in
            completion(
                named.compactMap { candidate in
                    resolved[DNSName.normalized(candidate.address)].flatMap { ICECandidate(remote: candidate, resolvedAddress: $0) }
                })
        }
        return true
    }
}
