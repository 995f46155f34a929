import VoiceAddress
import VoiceICE
import VoiceSupport

extension MediaPath.ICERun {
    /// The agent, when the peer does ICE.
    var agent: ICEAgent? {
        switch self {
        case .direct: nil
        case .checking(let agent), .restarting(let agent), .selected(let agent), .consentLost(let agent): agent
        }
    }
}

extension MediaPath {
    /// Runs `body` on the agent, taken out of ``ice`` meanwhile so that its storage stays
    /// uniquely held (no copy on write for each datagram).
    mutating func withAgent(_ body: (inout ICEAgent) -> [ICEAgentAction]) -> [ICEAgentAction] {
        let placeholder = ICERun.direct(localAddress)
        switch ice {
        case .direct:
            return []
        case .checking(var agent):
            ice = placeholder
            defer {
                figures.show(agent)
                ice = .checking(agent)
            }
            return body(&agent)
        case .restarting(var agent):
            ice = placeholder
            defer {
                figures.show(agent)
                ice = .restarting(agent)
            }
            return body(&agent)
        case .selected(var agent):
            ice = placeholder
            defer {
                figures.show(agent)
                ice = .selected(agent)
            }
            return body(&agent)
        case .consentLost(var agent):
            ice = placeholder
            defer {
                figures.show(agent)
                ice = .consentLost(agent)
            }
            return body(&agent)
        }
    }

    /// Carries out what the agent said when it was given the peer's candidates: an agent that
    /// failed there could not pair a single candidate of ours with one of the peer's (no
    /// shared address family, or no candidates at all), which the path reports as such.
    mutating func performRemoteSet(_ actions: [ICEAgentAction], now: MediaTime) -> [Effect] {
        if actions.contains(where: { if case .failed = $0 { true } else { false } }), let agent = ice.agent, agent.checkList.pairs.isEmpty {
            return fail(.noCandidatePair(local: agent.localCandidates.count, remote: figures.remoteCandidates))
        }
        return perform(actions, now: now)
    }

    /// Carries out what the agent asks.
    mutating func perform(_ actions: [ICEAgentAction], now: MediaTime) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes, let from, let to):
                if relay?.isRelayed(from) == true {
                    effects += sendThroughRelay(bytes, to: to, now: now)
                } else {
                    effects.append(.send(bytes, to: to, from: source(for: from)))
                }
            case .selected(let pair):
                effects += select(pair, now: now)
            case .failed:
                effects += fail(.iceFailed)
            case .consentLost:
                if case .selected(let agent) = ice { ice = .consentLost(agent) }
                effects.append(.event(.consentLost))
            case .consentRestored:
                if case .consentLost(let agent) = ice { ice = .selected(agent) }
                effects.append(.event(.consentRestored))
            case .refused:
                figures.refusedChecks += 1
            }
        }
        return effects
    }

    /// The agent selected `pair`: media goes over it, and the handshake starts if it had not.
    mutating func select(_ pair: ICECandidatePair, now: MediaTime) -> [Effect] {
        let remote = pair.remote.address
        if let agent = ice.agent { ice = .selected(agent) }
        let route = route(over: pair, to: remote)
        figures.selectedPair = ICESelectedPair(pair)
        figures.traffic.select(ICEPairAddresses(pair))
        if figures.routedAt == nil { figures.routedAt = now }
        switch phase {
        case .checking:
            return startDTLS(over: route, announce: true)
        case .keying, .installingKeys, .keyed:
            reroute(route)
            return [.route(route)]
        case .ready, .closed, .failed:
            return []
        }
    }

    /// During a restart, the best pair the new agent has validated carries media until one is
    /// nominated (the old path is usually gone: the host moved).
    mutating func followValidatedPair() -> [Effect] {
        guard case .restarting(let agent) = ice, agent.selectedPair == nil, let current = route,
            let valid = agent.checkList.pairs.first(where: { $0.state == .succeeded }),
            valid.remote.address != current.destination
        else { return [] }
        let route = route(over: valid, to: valid.remote.address)
        reroute(route)
        figures.traffic.select(ICEPairAddresses(valid))
        return [.route(route)]
    }

    /// The route over `pair`: through the relay when its local side is the relayed candidate,
    /// else from its base (once that is known to be the host's).
    func route(over pair: ICECandidatePair, to remote: TransportAddress) -> MediaRoute {
        let viaRelay = relay?.isRelayed(pair.local.base) ?? false
        return MediaRoute(destination: remote, source: viaRelay ? nil : source(for: pair.local.base), viaRelay: viaRelay)
    }

    /// Media moves to `route`, in whichever phase of keying the path is.
    mutating func reroute(_ route: MediaRoute) {
        switch phase {
        case .keying: phase = .keying(route)
        case .installingKeys(_, let keys): phase = .installingKeys(route, keys)
        case .keyed(_, let suite): phase = .keyed(route, suite)
        case .ready, .checking, .closed, .failed: break
        }
    }

    /// Whether a datagram from `source` comes from the peer: over the route, or before there is
    /// one from a pair that answered our check or a peer-reflexive address learned from the
    /// peer's authenticated check.
    func isFromPeer(_ source: TransportAddress) -> Bool {
        if let route { return route.destination == source }
        guard let agent = ice.agent else { return false }
        return agent.checkList.pairs.contains { $0.remote.address == source && ($0.state == .succeeded || $0.remote.kind == .peerReflexive) }
    }

    /// The ICE base: the host candidate on the stream's port (the socket may be bound to the
    /// wildcard), else the socket's own address.
    static func base(of candidates: [ICECandidate], on localAddress: TransportAddress) -> TransportAddress {
        candidates.first { $0.kind == .host && $0.address.port == localAddress.port }?.address ?? localAddress
    }

    /// Our host candidate's base on `port` at the address `local` names, if we have one.
    static func base(for local: TransportAddress, among candidates: [ICECandidate], port: UInt16) -> TransportAddress? {
        candidates.first { $0.kind == .host && $0.base.ip == local.ip && $0.base.port == port }?.base
    }

    /// The source address for datagrams from `base`: itself once datagrams came to it (so it is
    /// the host's), else nil (the kernel picks).
    func source(for base: TransportAddress) -> TransportAddress? {
        localAddressesSeen.contains(base.ip) ? base : nil
    }
}
