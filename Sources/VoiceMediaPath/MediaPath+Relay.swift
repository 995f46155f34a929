import VoiceAddress
import VoiceICE
import VoiceRTP
import VoiceSupport

/// The TURN allocation a path's relayed candidate is on.
struct RelayAllocation: Sendable {
    var client: TURNClient
    /// The relayed transport address: our relayed candidate, and its own base.
    var relayed: TransportAddress
    /// The TURN server.
    let server: TransportAddress
    /// How the server is reached. Over TCP or TLS, that connection dies when the host moves,
    /// so no new allocation is made from the port.
    let transport: TURNServer.Transport
    var overStream: Bool { transport != .udp }

    /// A dual allocation's IPv6 relayed address (RFC 8656 §7.2), also a relayed candidate's base.
    var additionalRelayed: TransportAddress? { client.additionalRelayedAddress }

    /// Whether `address` is one of our relayed addresses (the base of a relayed candidate).
    func isRelayed(_ address: TransportAddress) -> Bool { address == relayed || address == additionalRelayed }

    /// The relayed address that data from `peer` arrived on: the one of `peer`'s family (the
    /// server relays each family through its own).
    func relayed(toward peer: TransportAddress) -> TransportAddress {
        guard let additional = additionalRelayed, additional.ip.isIPv6 == peer.ip.isIPv6 else { return relayed }
        return additional
    }
}

/// A new allocation after the host moved, for the ICE restart that will offer its candidate.
enum Reallocation: Sendable {
    case none
    /// Asked for by `request`, whose answer is owed (``MediaPathEvent/relayReallocated(request:candidate:)``).
    case allocating(TURNClient, request: Int)
    /// Made and answered: the restart that offers `relayed` moves relayed traffic to it.
    case allocated(TURNClient, relayed: TransportAddress)
}

extension MediaPath {
    /// Starts a new TURN allocation from the stream's socket (the host moved); its relayed
    /// candidate (or nil) is reported as ``MediaPathEvent/relayReallocated(request:candidate:)``.
    /// A request still waiting is answered nil: this one supersedes it.
    package mutating func reallocateRelay(request: Int, now: MediaTime) -> [Effect] {
        guard let allocation = relay, !allocation.overStream, !hasEnded else {
            return [.event(.relayReallocated(request: request, candidates: []))]
        }
        var effects: [Effect] = []
        if case .allocating(_, let superseded) = reallocation {
            effects.append(.event(.relayReallocated(request: superseded, candidates: [])))
        }
        var client = allocation.client.restarted()
        let actions = client.start(now: now)
        reallocation = .allocating(client, request: request)
        return effects + performReallocation(actions)
    }

    /// `datagram` for `peer` through the relay, as a Send indication (before its channel is
    /// bound: rare, and it allocates); nil without a relay or a permission for the peer.
    package mutating func wrapForRelay(_ datagram: [UInt8], to peer: TransportAddress) -> [UInt8]? {
        guard var allocation = relay.take() else { return nil }
        defer { relay = allocation }
        return allocation.client.wrap(datagram, to: peer)
    }

    /// Runs `body` on the new allocation's client, if one is under way or made.
    mutating func withReallocation(_ body: (inout TURNClient) -> [TURNAction]) -> [TURNAction] {
        switch reallocation {
        case .none:
            return []
        case .allocating(var client, let request):
            reallocation = .none
            defer { reallocation = .allocating(client, request: request) }
            return body(&client)
        case .allocated(var client, let relayed):
            reallocation = .none
            defer { reallocation = .allocated(client, relayed: relayed) }
            return body(&client)
        }
    }

    /// What the new allocation asks: requests to the server, and its outcome to whoever waits.
    mutating func performReallocation(_ actions: [TURNAction]) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes):
                effects.append(.sendToRelay(bytes))
            case .allocated(let relayed, let mapped):
                guard case .allocating(let client, let request) = reallocation else { continue }
                reallocation = .allocated(client, relayed: relayed)
                let candidates = relay.map { TURNRelay.candidates(relayed: client.relayedAddresses, mapped: mapped, server: $0.server) } ?? []
                effects.append(.event(.relayReallocated(request: request, candidates: candidates)))
            case .failed:
                if case .allocating(_, let request) = reallocation {
                    effects.append(.event(.relayReallocated(request: request, candidates: [])))
                }
                reallocation = .none
            case .permitted, .channelBound, .received:
                break
            }
        }
        return effects
    }

    /// Whether the restart's candidates offer the new allocation's relayed address: relayed
    /// traffic then moves to it (its channels are bound anew).
    mutating func adoptReallocatedRelay(offeredIn candidates: [ICECandidate]) -> Bool {
        guard case .allocated(let client, let relayed) = reallocation, relay != nil,
            candidates.contains(where: { $0.kind == .relayed && $0.address == relayed })
        else { return false }
        relay?.client = client
        relay?.relayed = relayed
        reallocation = .none
        return true
    }

    /// What the TURN server sent: the new allocation's answers first (the old client ignores
    /// what is not its own), else the allocation in use.
    mutating func receiveFromRelayServer(_ bytes: [UInt8], now: MediaTime) -> [Effect] {
        let pending = withReallocation { $0.receive(bytes, now: now) }
        if !pending.isEmpty { return performReallocation(pending) }
        guard var allocation = relay.take() else { return [] }
        let actions = allocation.client.receive(bytes, now: now)
        relay = allocation
        return perform(actions, now: now)
    }

    /// Asks the TURN server to let each of the peer's candidates reach our relayed address
    /// (a permission and a channel each), before any check needs it.
    mutating func permitRemoteCandidates(now: MediaTime) -> [Effect] {
        guard let agent = ice.agent, var allocation = relay.take() else { return [] }
        var actions: [TURNAction] = []
        for remote in Set(agent.checkList.pairs.map(\.remote.address)) { actions += allocation.client.permit(remote, now: now) }
        relay = allocation
        return perform(actions, now: now)
    }

    /// A check (or its answer) from the relayed base: wrapped for the server; a peer without a
    /// permission yet (a peer-reflexive one) gets one first.
    mutating func sendThroughRelay(_ bytes: [UInt8], to peer: TransportAddress, now: MediaTime) -> [Effect] {
        guard var allocation = relay.take() else { return [] }
        let permit = allocation.client.hasAskedPermission(for: peer) ? [] : allocation.client.permit(peer, now: now)
        let wrapped = allocation.client.wrap(bytes, to: peer)
        relay = allocation
        var effects = perform(permit, now: now)
        if let wrapped { effects.append(.sendToRelay(wrapped)) }
        return effects
    }

    /// Carries out what the TURN client asks: requests to the server, channels for the
    /// driver, and relayed STUN and DTLS to the agent and the association.
    mutating func perform(_ actions: [TURNAction], now: MediaTime) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes):
                effects.append(.sendToRelay(bytes))
            case .channelBound(let peer, let number):
                effects.append(.channelBound(number, peer: peer))
            case .received(let data, let peer):
                switch data.withUnsafeBytes({ MediaDatagramKind($0) }) {
                case .stun: effects += receiveRelayedSTUN(data, from: peer, now: now)
                case .dtls: effects += receiveDTLS(data, from: peer, viaRelay: true, now: now)
                default: break  // RTP in a Data indication, before its channel is bound: not played
                }
            case .failed, .allocated, .permitted:
                // A failed allocation (a refresh refused): the relayed candidate is gone, and a
                // relayed path in use loses consent and reconnects or ends as any lost path.
                break
            }
        }
        return effects
    }
}
