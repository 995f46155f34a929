import VoiceDTLS
import VoiceICE
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// A stream's WebRTC media path, run by its driver on the media thread: the ICE agent that finds
/// and keeps the path (connectivity checks, nomination, consent), and the DTLS association
/// that keys SRTP once a path is selected. Until the keys are in, nothing of the stream's RTP or
/// RTCP is sent and nothing received is played; while consent is lost, nothing is sent.
///
/// STUN and DTLS datagrams reach it by RFC 7983's first-byte rule. DTLS is taken only from
/// the selected path, or before one is selected from an address the peer proved with an
/// authenticated check (an off-path intruder cannot break the handshake with a stray hello).
///
/// With a TURN relay (RFC 8656), the relayed candidate is one more local base: checks from it,
/// and everything once a relayed pair is selected, go to the TURN server wrapped (ChannelData
/// once the peer's channel is bound, a Send indication before), and what the server relays
/// comes back unwrapped with the peer as its source. The driver does RTP's wrapping and
/// unwrapping in place (``relayChannel(for:)``, ``relayPeer(onChannel:)``); this does the rest.
final class StreamSecurePath {
    private var ice: ICEAgent?
    let dtls: DTLSAssociation
    private var base: ICETransportAddress?
    private let localAddress: SocketAddress
    private let iceConfiguration: ICEAgentConfiguration
    /// ICE restarts taken (the host moved, or the peer restarted).
    private(set) var iceRestarts = 0
    /// An ICE restart whose new agent has not selected a pair yet: media moves to the first pair
    /// it validates (an authenticated check answered), without waiting for the nomination.
    private var restarting = false
    /// Where media, RTCP and DTLS go: the selected pair's remote, or the signaled address without ICE.
    private(set) var destination: SocketAddress?
    /// The local address they go from: the selected pair's base (not relayed), which a socket
    /// bound to the wildcard must name, or the kernel may pick another of the host's addresses
    /// and the peer would not recognise us (RFC 8445 §7.2.5.2.1: responses must be symmetric).
    private(set) var mediaSource: SocketAddress?
    /// The host's addresses datagrams came to (a wildcard socket's `IP_PKTINFO`): a base is
    /// named as the source only once it is one of them. A candidate can carry an address the
    /// host does not have (a NAT's, learned for signaling), and a datagram sent "from" it
    /// would leave with a forged source.
    private var localAddressesSeen: [SocketAddress] = []
    private var dtlsStarted = false
    private(set) var isKeyed = false
    private(set) var consentLost = false
    private(set) var failed = false

    // Figures for stats and the security counters.
    private(set) var selectedPair: String = ""
    private(set) var suite: SRTPSuite?
    private(set) var refusedChecks: UInt64 = 0
    private(set) var droppedBeforeKeys: UInt64 = 0
    private(set) var offPathDTLS: UInt64 = 0
    private(set) var failure: MediaPathFailure?
    /// When the path started, when it first had a path to the peer (ICE selected a pair, or the
    /// peer's handshake came over a proven address before that), and when the DTLS keys were in.
    private(set) var startedAt: MediaTime?
    private(set) var pathSelectedAt: MediaTime?
    private(set) var keyedAt: MediaTime?

    var usesICE: Bool { ice != nil }
    /// Whether a handshake is under way: ICE checking for a first path (or a new one after a
    /// restart), or DTLS keying. Its datagrams are then worth handling the moment they arrive.
    var isSettingUp: Bool { !failed && (!isKeyed || restarting) }
    /// What the agent said when it was given the peer's parameters, carried out at ``start(now:)``.
    private var startActions: [ICEAgentAction] = []
    private var remoteCandidateCount = 0

    // The TURN relay, when one was allocated for the port.
    private var turn: TURNClient?
    private var relayed: ICETransportAddress?
    /// Where relayed traffic goes: the TURN server.
    private(set) var relayServer: SocketAddress?
    /// Channels the server bound, with the peer's address: the driver's per-packet lookups.
    private var relayChannels: [(number: UInt16, peer: SocketAddress)] = []
    /// Whether the selected pair is the relayed candidate's: media goes through the server.
    private(set) var sendsViaRelay = false
    /// Whether checks straight to the port are answered: not when our candidates are relayed
    /// only (the relay-only policy), which would reveal the host's address.
    private var answersDirectChecks = true
    /// A new allocation under way after the host moved, and who gets its relayed candidate; the
    /// ICE restart that offers the candidate switches to it (``restartICE(_:now:)``).
    private var pendingTurn: TURNClient?
    /// The reallocation request whose answer is owed (``AudioStreamEvent/relayReallocated(request:candidate:)``).
    private var pendingRequest: Int?
    private var pendingRelayed: ICETransportAddress?
    /// Whether the relay is reached over TCP or TLS (its connection died with the move: no new allocation).
    private var relayOverStream = false

    /// An ICE restart: a new agent with new credentials checks anew, while media goes on over
    /// the pair in force until the new agent selects one (make before break). DTLS stays.
    func restartICE(_ restart: MediaPathSetup.ICERestart, now: MediaTime) -> [Effect] {
        guard !failed else { return [] }
        var agent = ICEAgent(
            configuration: iceConfiguration, credentials: restart.localCredentials, candidates: restart.localCandidates,
            isControlling: restart.isControlling, random: SecureRandomNumberGenerator())
        let actions = agent.setRemote(
            credentials: restart.remote.credentials, candidates: restart.remote.candidates, isLite: restart.remote.isLite, now: now)
        base = Self.base(of: restart.localCandidates, on: localAddress)
        answersDirectChecks = relayServer == nil || restart.localCandidates.contains { $0.kind != .relayed }
        // The restart offers the relay allocated from the new address: media moves to it.
        var switched = false
        if let pendingRelayed, let pendingTurn, restart.localCandidates.contains(where: { $0.kind == .relayed && $0.address == pendingRelayed }) {
            turn = pendingTurn
            relayed = pendingRelayed
            relayChannels = []
            self.pendingTurn = nil
            self.pendingRelayed = nil
            switched = true
        }
        ice = agent
        consentLost = false
        iceRestarts += 1
        restarting = true
        let effects = performRemoteSet(actions, agent: agent, remoteCandidates: restart.remote.candidates.count, now: now)
        return failed ? effects : effects + (switched ? permitRemoteCandidates(now: now) : [])
    }

    /// Starts a new TURN allocation from the stream's socket (the host moved); its relayed
    /// candidate (or nil) is reported as ``AudioStreamEvent/relayReallocated(request:candidate:)``.
    func reallocateRelay(request: Int, now: MediaTime) -> [Effect] {
        guard let turn, !relayOverStream, !failed else {
            return [.event(.relayReallocated(request: request, candidate: nil))]
        }
        var effects: [Effect] = []
        if let superseded = pendingRequest { effects.append(.event(.relayReallocated(request: superseded, candidate: nil))) }
        var client = turn.restarted()
        let actions = client.start(now: now)
        pendingTurn = client
        pendingRelayed = nil
        pendingRequest = request
        return effects + performPending(actions)
    }

    /// The answer owed to the reallocation request waiting, if one is.
    private func answerReallocation(_ candidate: ICECandidate?) -> [Effect] {
        guard let request = pendingRequest.take() else { return [] }
        return [.event(.relayReallocated(request: request, candidate: candidate))]
    }

    /// What the new allocation asks: requests to the server, and its outcome to whoever waits.
    private func performPending(_ actions: [TURNAction]) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes):
                if let relayServer { effects.append(.send(bytes, to: relayServer)) }
            case .allocated(let relayedAddress, let mapped):
                pendingRelayed = relayedAddress
                effects += answerReallocation(turnServerAddress.map { TURNRelay.candidate(relayed: relayedAddress, mapped: mapped, server: $0) })
            case .failed:
                effects += answerReallocation(nil)
                pendingTurn = nil
            default:
                break
            }
        }
        return effects
    }

    /// The TURN server's address, as candidates name it.
    private var turnServerAddress: ICETransportAddress? { relayServer.flatMap(ICETransportAddress.init) }

    /// RTP or RTCP that came before the keys: not played (it could not be authenticated).
    func countDroppedBeforeKeys() { droppedBeforeKeys += 1 }

    init(setup: MediaPathSetup, localAddress: SocketAddress, signaledRemote: SocketAddress?) throws(DTLSError) {
        let fingerprints = setup.remoteFingerprints
        dtls = try DTLSAssociation(
            certificate: setup.certificate, role: setup.dtlsRole, remoteFingerprints: fingerprints, configuration: setup.dtls)
        self.localAddress = localAddress
        iceConfiguration = setup.ice
        // The host candidate on this port is the base: the socket may be bound to the wildcard.
        base = Self.base(of: setup.localCandidates, on: localAddress)
        if let relay = setup.relay, let server = SocketAddress(relay.server) {
            turn = relay.client
            relayed = relay.relayed
            relayServer = server
            relayOverStream = relay.connection != nil
            answersDirectChecks = setup.localCandidates.contains { $0.kind != .relayed }
        }
        if let remote = setup.remoteICE {
            // The peer's parameters go to the agent now, so that checks read before the first
            // tick (the peer's may come first) are answered and remembered in full, nomination
            // included; what the agent says (a check list that cannot form: it failed at once)
            // is carried out when the path starts.
            var agent = ICEAgent(
                configuration: setup.ice, credentials: setup.localCredentials, candidates: setup.localCandidates,
                isControlling: setup.isControlling, random: SecureRandomNumberGenerator())
            startActions = agent.setRemote(credentials: remote.credentials, candidates: remote.candidates, isLite: remote.isLite, now: .zero)
            remoteCandidateCount = remote.candidates.count
            ice = agent
        } else {
            destination = signaledRemote
        }
    }

    /// What the driver does for the path: send a datagram, switch the stream's remote, install
    /// keys, report.
    enum Effect {
        /// A datagram, from a local address when the socket is bound to the wildcard (an ICE
        /// base: replies and media must come from the address the peer checked).
        case send([UInt8], to: SocketAddress, from: SocketAddress? = nil)
        /// Media now goes to this address, from ``StreamSecurePath/mediaSource``.
        case setRemote(SocketAddress)
        case keyed(any PacketProtection, DTLSSRTPKeys)
        case event(AudioStreamEvent)
    }

    // MARK: - Events

    /// Starts the checks (ICE) or, without ICE, the handshake toward the signaled address.
    func start(now: MediaTime) -> [Effect] {
        if startedAt == nil { startedAt = now }
        guard let agent = ice else { return startDTLS(now: now) }
        let actions = startActions
        startActions = []
        let effects = performRemoteSet(actions, agent: agent, remoteCandidates: remoteCandidateCount, now: now)
        return failed ? effects : effects + permitRemoteCandidates(now: now)
    }

    /// Carries out what the agent said when it was given the peer's candidates: an agent that
    /// failed there could not pair a single candidate of ours with one of the peer's (no
    /// shared address family, or no candidates at all), which the path reports as such.
    private func performRemoteSet(_ actions: [ICEAgentAction], agent: ICEAgent, remoteCandidates: Int, now: MediaTime) -> [Effect] {
        guard actions.contains(where: { if case .failed = $0 { true } else { false } }), agent.checkList.pairs.isEmpty else {
            return perform(actions, now: now)
        }
        return fail(.noCandidatePair(local: agent.localCandidates.count, remote: remoteCandidates))
    }

    /// Asks the TURN server to let each of the peer's candidates reach our relayed address
    /// (a permission and a channel each), before any check needs it.
    private func permitRemoteCandidates(now: MediaTime) -> [Effect] {
        guard var client = turn.take(), let agent = ice else { return [] }
        var actions: [TURNAction] = []
        for remote in Set(agent.checkList.pairs.map(\.remote.address)) { actions += client.permit(remote, now: now) }
        turn = client
        return perform(actions, now: now)
    }

    /// The channel `peer` is bound to, for RTP to go as ChannelData (nil: none bound yet).
    func relayChannel(for peer: SocketAddress) -> UInt16? {
        for channel in relayChannels where channel.peer == peer { return channel.number }
        return nil
    }

    /// The peer a relayed ChannelData came from.
    func relayPeer(onChannel number: UInt16) -> SocketAddress? {
        for channel in relayChannels where channel.number == number { return channel.peer }
        return nil
    }

    /// `datagram` for `peer` through the relay, as a Send indication (before its channel is
    /// bound: rare, and it allocates); nil without a permission for it.
    func wrapForRelay(_ datagram: [UInt8], to peer: SocketAddress) -> [UInt8]? {
        guard let to = ICETransportAddress(peer) else { return nil }
        return turn?.wrap(datagram, to: to)
    }

    /// A STUN message the relay carried from `peer` (in ChannelData): a check on the relayed base.
    func receiveRelayedSTUN(_ bytes: [UInt8], from peer: SocketAddress, now: MediaTime) -> [Effect] {
        guard let relayed, let from = ICETransportAddress(peer), var agent = ice.take() else { return [] }
        let actions = agent.receive(bytes, from: from, on: relayed, now: now)
        ice = agent
        return perform(actions, now: now) + followValidatedPair()
    }

    /// - Parameter local: the local address it was sent to, when the socket is bound to the
    ///   wildcard: the base it arrived on, if one of our candidates has it.
    func receiveSTUN(_ bytes: [UInt8], from source: SocketAddress, to local: SocketAddress? = nil, now: MediaTime) -> [Effect] {
        if source == relayServer, var client = turn.take() {
            if var pending = pendingTurn.take() {
                // The new allocation's answers (the old client ignores what is not its own).
                let actions = pending.receive(bytes, now: now)
                pendingTurn = pending
                if !actions.isEmpty {
                    turn = client
                    return performPending(actions)
                }
            }
            let actions = client.receive(bytes, now: now)
            turn = client
            return perform(actions, now: now)
        }
        guard answersDirectChecks else {
            refusedChecks += 1
            return []
        }
        guard ice != nil, var base, let from = ICETransportAddress(source), var agent = ice.take() else { return [] }
        if let local {
            if !localAddressesSeen.contains(where: { $0.hasSameHost(as: local) }), localAddressesSeen.count < 16 { localAddressesSeen.append(local) }
            if let arrivedOn = Self.base(for: local, among: agent.localCandidates, port: base.port) { base = arrivedOn }
        }
        // Taken out, so the agent's storage stays uniquely held (no copy on write each time).
        let actions = agent.receive(bytes, from: from, on: base, now: now)
        ice = agent
        return perform(actions, now: now) + followValidatedPair()
    }

    func receiveDTLS(_ bytes: [UInt8], from source: SocketAddress, now: MediaTime) -> [Effect] {
        guard isFromPeer(source) else {
            offPathDTLS += 1
            return []
        }
        if !dtlsStarted {
            // The peer's ClientHello came before our side selected a pair (its nomination won
            // the race): the server side starts its handshake clock now.
            dtlsStarted = true
            if destination == nil {
                destination = source
                pathSelectedAt = now
            }
        }
        return perform(dtls.receive(bytes, now: now), now: now)
    }

    func tick(now: MediaTime) -> [Effect] {
        guard !failed else { return [] }
        var effects: [Effect] = []
        if var client = turn.take() {
            let actions = client.tick(now: now)
            turn = client
            if !actions.isEmpty { effects += perform(actions, now: now) }
        }
        if var pending = pendingTurn.take() {
            let actions = pending.tick(now: now)
            pendingTurn = pending
            if !actions.isEmpty { effects += performPending(actions) }
        }
        if var agent = ice.take() {
            let actions = agent.tick(now: now)
            ice = agent
            if !actions.isEmpty { effects += perform(actions, now: now) + followValidatedPair() }
        }
        if dtlsStarted, let due = dtls.nextDeadline, now >= due {
            effects += perform(dtls.tick(now: now), now: now)
        }
        return effects
    }

    /// The call is ending: close_notify to the peer.
    func close() -> [Effect] {
        var effects: [Effect] = []
        if dtlsStarted, !failed {
            for case .send(let bytes) in dtls.close() { effects += outgoing(bytes) }
        }
        // The allocation is given back (a Refresh with lifetime 0), after the close_notify it carried.
        if var client = turn.take(), let relayServer {
            for case .send(let bytes) in client.close(now: .zero) { effects.append(.send(bytes, to: relayServer)) }
        }
        return effects
    }

    /// A DTLS datagram for the peer: to the selected pair's remote, through the relay when
    /// the pair is relayed.
    private func outgoing(_ bytes: [UInt8]) -> [Effect] {
        guard let destination else { return [] }
        guard sendsViaRelay, let relayServer else { return [.send(bytes, to: destination, from: mediaSource)] }
        guard let wrapped = wrapForRelay(bytes, to: destination) else { return [] }
        return [.send(wrapped, to: relayServer)]
    }

    /// The path's figures, for the stream's stats.
    func addFigures(to s: inout AudioStreamStats) {
        s.selectedCandidatePair = selectedPair
        s.dtlsState =
            switch dtls.state {
            case .idle: "new"
            case .handshaking, .awaitingFingerprint: "connecting"
            case .connected: "connected"
            case .closed: "closed"
            case .failed: "failed"
            }
        s.dtlsSRTPSuite = suite?.sdesName ?? ""
        s.stunIntegrityFailures = refusedChecks
        s.offPathDTLSDatagrams = offPathDTLS
        s.packetsBeforeKeys = droppedBeforeKeys
        if let startedAt, let pathSelectedAt {
            s.iceConnectMilliseconds = max(0, (pathSelectedAt - startedAt).milliseconds)
        }
        if let keyedAt, let from = pathSelectedAt ?? startedAt {
            s.dtlsHandshakeMilliseconds = max(0, (keyedAt - from).milliseconds)
        }
    }

    // MARK: - Inside

    /// The ICE base: the host candidate on the stream's port (the socket may be bound to the
    /// wildcard), else the socket's own address.
    private static func base(of candidates: [ICECandidate], on localAddress: SocketAddress) -> ICETransportAddress? {
        candidates.first { $0.kind == .host && Int($0.address.port) == localAddress.port }?.address ?? ICETransportAddress(localAddress)
    }

    /// The source address for datagrams from `base`: itself once datagrams came to it (so it is
    /// the host's), else nil (the kernel picks).
    private func source(for base: ICETransportAddress) -> SocketAddress? {
        guard let address = SocketAddress(base), localAddressesSeen.contains(where: { $0.hasSameHost(as: address) }) else { return nil }
        return address
    }

    /// Our host candidate's base on `port` at the address `local` names, if we have one.
    private static func base(for local: SocketAddress, among candidates: [ICECandidate], port: UInt16) -> ICETransportAddress? {
        guard let ip = ICETransportAddress(local)?.ip else { return nil }
        return candidates.first { $0.kind == .host && $0.base.ip == ip && $0.base.port == port }?.base
    }

    private func isFromPeer(_ source: SocketAddress) -> Bool {
        if let destination { return destination == source }
        guard let agent = ice, let from = ICETransportAddress(source) else { return false }
        // A pair that answered our check, or a peer-reflexive address learned from its authenticated check.
        return agent.checkList.pairs.contains { $0.remote.address == from && ($0.state == .succeeded || $0.remote.kind == .peerReflexive) }
    }

    /// During a restart, the best pair the new agent has validated carries media until one is
    /// nominated (the old path is usually gone: the host moved).
    private func followValidatedPair() -> [Effect] {
        guard restarting, let agent = ice, agent.selectedPair == nil,
            let valid = agent.checkList.pairs.first(where: { $0.state == .succeeded }),
            let remote = SocketAddress(valid.remote.address), remote != destination
        else { return [] }
        destination = remote
        sendsViaRelay = relayed != nil && valid.local.base == relayed
        mediaSource = sendsViaRelay ? nil : source(for: valid.local.base)
        return [.setRemote(remote)]
    }

    private func startDTLS(now: MediaTime) -> [Effect] {
        guard !dtlsStarted else { return [] }
        dtlsStarted = true
        return perform(dtls.start(now: now), now: now)
    }

    private func perform(_ actions: [ICEAgentAction], now: MediaTime) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes, let from, let to):
                if from == relayed, relayed != nil {
                    effects += sendThroughRelay(bytes, to: to, now: now)
                } else if let address = SocketAddress(to) {
                    effects.append(.send(bytes, to: address, from: source(for: from)))
                }
            case .selected(let pair):
                restarting = false
                guard let remote = SocketAddress(pair.remote.address) else { continue }
                let first = destination == nil
                destination = remote
                sendsViaRelay = relayed != nil && pair.local.base == relayed
                mediaSource = sendsViaRelay ? nil : source(for: pair.local.base)
                if pathSelectedAt == nil { pathSelectedAt = now }
                selectedPair = "\(pair.local.kind.rawValue) \(pair.local.address) -> \(pair.remote.kind.rawValue) \(pair.remote.address)"
                effects.append(.setRemote(remote))
                if first || !dtlsStarted { effects += startDTLS(now: now) }
            case .failed:
                effects += fail(.iceFailed)
            case .consentLost:
                consentLost = true
                effects.append(.event(.consentLost))
            case .consentRestored:
                consentLost = false
                effects.append(.event(.consentRestored))
            case .refused:
                refusedChecks += 1
            }
        }
        return effects
    }

    private func perform(_ actions: [DTLSAction], now: MediaTime) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes):
                effects += outgoing(bytes)
            case .connected(let keys):
                do throws(SRTPError) {
                    let session = try SRTPSession(outbound: keys.local, inbound: keys.remote)
                    isKeyed = true
                    suite = keys.suite
                    if keyedAt == nil { keyedAt = now }
                    effects.append(.keyed(session, keys))
                    effects.append(.event(.mediaPathConnected(path: selectedPair.isEmpty ? "\(destination.map(\.description) ?? "?")" : selectedPair, security: keys.description)))
                } catch {
                    effects += fail(.dtls(.handshakeFailed("SRTP session for \(keys.suite.sdesName): \(error)")))
                }
            case .failed(let error):
                effects += fail(.dtls(error))
            case .closed:
                // The peer is hanging up: its close_notify often outruns its BYE. Not a failure;
                // the BYE ends the call (or, if none comes, the media watchdog does).
                break
            }
        }
        return effects
    }

    /// A check (or its answer) from the relayed base: wrapped for the server; a peer without a
    /// permission yet (a peer-reflexive one) gets one first.
    private func sendThroughRelay(_ bytes: [UInt8], to peer: ICETransportAddress, now: MediaTime) -> [Effect] {
        guard var client = turn.take(), let relayServer else { return [] }
        let permit = client.hasAskedPermission(for: peer) ? [] : client.permit(peer, now: now)
        let wrapped = client.wrap(bytes, to: peer)
        turn = client
        var effects = perform(permit, now: now)
        if let wrapped { effects.append(.send(wrapped, to: relayServer)) }
        return effects
    }

    /// Carries out what the TURN client asks: requests to the server, channels for the
    /// driver, and relayed STUN and DTLS to the agent and the association.
    private func perform(_ actions: [TURNAction], now: MediaTime) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes):
                if let relayServer { effects.append(.send(bytes, to: relayServer)) }
            case .channelBound(let peer, let number):
                if let address = SocketAddress(peer) { relayChannels.append((number, address)) }
            case .received(let data, let peer):
                guard let source = SocketAddress(peer) else { continue }
                let kind = data.withUnsafeBytes { MediaDatagramKind($0) }
                switch kind {
                case .stun: effects += receiveRelayedSTUN(data, from: source, now: now)
                case .dtls: effects += receiveDTLS(data, from: source, now: now)
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

    private func fail(_ why: MediaPathFailure) -> [Effect] {
        guard !failed else { return [] }
        failed = true
        failure = why
        return [.event(.mediaPathFailed(why))]
    }
}

@available(*, unavailable)
extension StreamSecurePath: Sendable {}
