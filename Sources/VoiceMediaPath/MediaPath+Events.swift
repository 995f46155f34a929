import VoiceAddress
import VoiceDTLSTypes
import VoiceICE
import VoiceSupport

extension MediaPath {
    /// Starts the checks (ICE: the first one leaves now) or, without ICE, the handshake toward
    /// the signaled address.
    package mutating func start(now: MediaTime) -> [Effect] {
        guard case .ready(let agentSaid) = phase else { return [] }
        figures.startedAt = now
        switch ice {
        case .direct(let destination):
            return startDTLS(over: MediaRoute(destination: destination), announce: false)
        case .checking, .restarting, .selected, .consentLost:
            phase = .checking
            let effects = performRemoteSet(agentSaid, now: now)
            if hasEnded { return effects }
            // The permissions go first, then the first check at once rather than at the next tick.
            let permits = permitRemoteCandidates(now: now)
            return effects + permits + tick(now: now)
        }
    }

    /// The clock ticked: the agent's checks and consent, the relay's refreshes.
    package mutating func tick(now: MediaTime) -> [Effect] {
        switch phase {
        case .ready, .closed, .failed: return []
        case .checking, .keying, .installingKeys, .keyed: break
        }
        var effects: [Effect] = []
        if var allocation = relay.take() {
            let actions = allocation.client.tick(now: now)
            relay = allocation
            if !actions.isEmpty { effects += perform(actions, now: now) }
        }
        let pending = withReallocation { $0.tick(now: now) }
        if !pending.isEmpty { effects += performReallocation(pending) }
        let actions = withAgent { $0.tick(now: now) }
        if !actions.isEmpty { effects += perform(actions, now: now) + followValidatedPair() }
        return effects
    }

    /// A STUN message at the stream's port: a check or its answer, or the TURN server's.
    /// - Parameter local: the local address it was sent to, when the socket is bound to the
    ///   wildcard: the base it arrived on, if one of our candidates has it.
    package mutating func receiveSTUN(_ bytes: [UInt8], from source: TransportAddress, to local: TransportAddress? = nil, now: MediaTime) -> [Effect] {
        var effects = start(now: now)
        if hasEnded { return effects }
        if let server = relay?.server, source == server { return effects + receiveFromRelayServer(bytes, now: now) }
        guard answersDirectChecks else {
            figures.refusedChecks += 1
            return effects
        }
        var base = self.base
        guard let agent = ice.agent else { return effects }
        if let local {
            if !localAddressesSeen.contains(local.ip), localAddressesSeen.count < 16 { localAddressesSeen.append(local.ip) }
            if let arrivedOn = Self.base(for: local, among: agent.localCandidates, port: base.port) { base = arrivedOn }
        }
        let actions = withAgent { $0.receive(bytes, from: source, on: base, now: now) }
        effects += perform(actions, now: now)
        return effects + followValidatedPair()
    }

    /// A STUN message the relay carried from `peer`: a check on the relayed base.
    package mutating func receiveRelayedSTUN(_ bytes: [UInt8], from peer: TransportAddress, now: MediaTime) -> [Effect] {
        var effects = start(now: now)
        guard !hasEnded, let relayed = relay?.relayed(toward: peer) else { return effects }
        let actions = withAgent { $0.receive(bytes, from: peer, on: relayed, now: now) }
        effects += perform(actions, now: now)
        return effects + followValidatedPair()
    }

    /// A DTLS datagram at the stream's port (or relayed from `source`, `viaRelay`). Taken only
    /// from the peer's proven path; the association gets it through ``Effect/dtls(_:)``.
    package mutating func receiveDTLS(_ bytes: [UInt8], from source: TransportAddress, viaRelay: Bool = false, now: MediaTime) -> [Effect] {
        var effects = start(now: now)
        guard isFromPeer(source) else {
            figures.offPathDTLS += 1
            return effects
        }
        figures.traffic.received(bytes.count)
        switch phase {
        case .checking:
            // The peer's ClientHello came before our side selected a pair (its nomination won
            // the race): the server side's handshake runs from now, over the address it proved.
            if figures.routedAt == nil { figures.routedAt = now }
            phase = .keying(MediaRoute(destination: source, viaRelay: viaRelay && relay != nil))
            figures.dtlsState = .connecting
            effects.append(.dtls(.receive(bytes)))
        case .keying, .installingKeys, .keyed:
            effects.append(.dtls(.receive(bytes)))
        case .ready, .closed, .failed:
            break
        }
        return effects
    }

    /// An ICE restart: a new agent with new credentials checks anew, while media goes on over
    /// the route in force until the new agent validates a pair (make before break). DTLS stays.
    /// When the restart offers the relay allocated from the host's new address
    /// (``reallocateRelay(request:now:)``), relayed traffic moves to it.
    package mutating func restartICE(_ restart: ICERestart, now: MediaTime) -> [Effect] {
        var effects = start(now: now)
        if hasEnded { return effects }
        var agent = ICEAgent(
            configuration: iceConfiguration, credentials: restart.localCredentials, candidates: restart.localCandidates,
            isControlling: restart.isControlling, random: SecureRandomNumberGenerator())
        let said = agent.setRemote(
            credentials: restart.remote.credentials, candidates: restart.remote.candidates, isLite: restart.remote.isLite,
            moreCandidatesComing: restart.remote.moreCandidatesComing, now: now)
        base = Self.base(of: restart.localCandidates, on: localAddress)
        answersDirectChecks = relay == nil || restart.localCandidates.contains { $0.kind != .relayed }
        let switched = adoptReallocatedRelay(offeredIn: restart.localCandidates)
        if switched { effects.append(.channelsCleared) }
        ice = .restarting(agent)
        figures.iceRestarts += 1
        figures.show(agent)
        figures.remoteCandidates = restart.remote.candidates.count
        effects += performRemoteSet(said, now: now)
        return hasEnded || !switched ? effects : effects + permitRemoteCandidates(now: now)
    }

    /// The call is ending: the association's close_notify (what it said as it closed,
    /// `closeNotify`) goes to the peer, then the allocation is given back (a Refresh with
    /// lifetime 0).
    package mutating func close(closeNotify: [DTLSAction]) -> [Effect] {
        var effects: [Effect] = []
        if runsDTLS {
            for case .send(let bytes) in closeNotify { effects += outgoing(bytes) }
            figures.dtlsState = .closed
        }
        if var allocation = relay.take() {
            for case .send(let bytes) in allocation.client.close(now: .zero) { effects.append(.sendToRelay(bytes)) }
            relay = allocation
        }
        if !hasEnded { phase = .closed }
        return effects
    }

    // MARK: - Inside

    /// Whether the path failed or was closed: nothing more happens on it.
    var hasEnded: Bool {
        switch phase {
        case .closed, .failed: true
        case .ready, .checking, .keying, .installingKeys, .keyed: false
        }
    }

    mutating func fail(_ why: MediaPathFailure) -> [Effect] {
        if hasEnded { return [] }
        phase = .failed(why)
        return [.event(.failed(why))]
    }
}
