import VoiceAddress
/// The pairs an agent checks, formed, ordered, pruned and given their initial states as RFC
/// 8445 §6.1.2 says. A value: the agent that owns it changes the pairs' states as checks go.
package struct ICECheckList: Hashable, Sendable {
    /// At most this many pairs (RFC 8445 §6.1.2.5 recommends 100): the lowest-priority ones go.
    package static let maximumPairs = 100

    /// The pairs, highest priority first.
    package private(set) var pairs: [ICECandidatePair]
    /// Whether the local agent is controlling (pair priorities depend on it).
    package private(set) var localIsControlling: Bool

    /// Forms the check list of `local` and `remote` candidates.
    ///
    /// A local candidate is paired with each remote candidate of the same component and address
    /// family. A server-reflexive local candidate is replaced by its base (it sends from there
    /// anyway), and of the pairs with the same local base and remote candidate only the one
    /// with the highest priority stays. Then, for each foundation, the pair with the lowest
    /// component and the highest priority is waiting; the others are frozen.
    package init(local: [ICECandidate], remote: [ICECandidate], localIsControlling: Bool) {
        self.localIsControlling = localIsControlling
        var formed: [ICECandidatePair] = []
        for l in local {
            for r in remote where l.component == r.component && l.address.ip.isIPv6 == r.address.ip.isIPv6 {
                var sender = l
                if l.kind == .serverReflexive,
                    let host = local.first(where: { $0.kind == .host && $0.address == l.base && $0.component == l.component })
                {
                    sender = host
                }
                formed.append(ICECandidatePair(local: sender, remote: r))
            }
        }
        formed.sort { $0.priority(localIsControlling: localIsControlling) > $1.priority(localIsControlling: localIsControlling) }
        // Prune: the same local base and remote candidate twice is one pair (the higher one).
        var seen = Set<[String]>()
        formed = formed.filter { pair in
            seen.insert(["\(pair.local.base)", "\(pair.remote.address)", "\(pair.remote.component)"]).inserted
        }
        pairs = Array(formed.prefix(Self.maximumPairs))
        unfreezeInitialPairs()
    }

    /// RFC 8445 §6.1.2.6: per foundation, the pair with the lowest component ID, and of those
    /// the highest priority, starts waiting.
    private mutating func unfreezeInitialPairs() {
        var chosen: [String: Int] = [:]
        for (index, pair) in pairs.enumerated() {
            guard let current = chosen[pair.foundation] else {
                chosen[pair.foundation] = index
                continue
            }
            // `pairs` is sorted by priority: an earlier pair wins unless this one has a lower component.
            if pair.local.component < pairs[current].local.component { chosen[pair.foundation] = index }
        }
        for index in chosen.values { pairs[index].state = .waiting }
    }

    /// Re-sorts the pairs after a role change (RFC 8445 §7.3.1.1: the priorities change with the role).
    package mutating func setLocalIsControlling(_ controlling: Bool) {
        localIsControlling = controlling
        pairs.sort { $0.priority(localIsControlling: controlling) > $1.priority(localIsControlling: controlling) }
    }

    /// The index of the pair of `local` base and `remote` address, if listed.
    package func index(localBase: TransportAddress, remote: TransportAddress) -> Int? {
        pairs.firstIndex { $0.local.base == localBase && $0.remote.address == remote }
    }

    /// A remote candidate learned after the list formed (a `.local` name resolved): the pairs
    /// whose remote side is a peer-reflexive candidate at its address take it over, keeping their
    /// states and nominations; each local base of its family not yet paired with that address
    /// gets a waiting pair. The list is then re-sorted and pruned to ``maximumPairs``.
    package mutating func addRemote(_ candidate: ICECandidate, local: [ICECandidate]) {
        for index in pairs.indices
        where pairs[index].remote.address == candidate.address && pairs[index].remote.component == candidate.component
            && pairs[index].remote.kind == .peerReflexive
        {
            pairs[index].remote = candidate
        }
        for l in local where l.component == candidate.component && l.address.ip.isIPv6 == candidate.address.ip.isIPv6 {
            let sender = l.kind == .serverReflexive ? local.first { $0.kind == .host && $0.address == l.base && $0.component == l.component } ?? l : l
            guard index(localBase: sender.base, remote: candidate.address) == nil else { continue }
            pairs.append(ICECandidatePair(local: sender, remote: candidate, state: .waiting))
        }
        pairs.sort { $0.priority(localIsControlling: localIsControlling) > $1.priority(localIsControlling: localIsControlling) }
        if pairs.count > Self.maximumPairs { pairs.removeLast(pairs.count - Self.maximumPairs) }
    }

    /// Sets the state of the pair at `index`.
    package mutating func setState(_ state: ICECandidatePair.State, at index: Int) { pairs[index].state = state }

    /// The pair at `index` was nominated: a check with USE-CANDIDATE succeeded on it.
    package mutating func setNominated(at index: Int) { pairs[index].nominated = true }

    /// Adds a pair found by a check (a peer-reflexive candidate, a triggered check) in priority order.
    package mutating func insert(_ pair: ICECandidatePair) -> Int {
        let priority = pair.priority(localIsControlling: localIsControlling)
        let index = pairs.firstIndex { $0.priority(localIsControlling: localIsControlling) < priority } ?? pairs.count
        pairs.insert(pair, at: index)
        return index
    }
}
