import VoiceAddress
import VoiceSTUN
import VoiceSupport

/// A full ICE agent (RFC 8445) for one component (RTP with rtcp-mux), as a value: fed the
/// peer's parameters, received datagrams and clock ticks, it returns what to send and what
/// happened. It sends no packet and reads no clock of its own, so a test drives two agents
/// through a simulated network in virtual time, and the driver does the sockets.
///
/// What it does: paced checks (one per ``ICEAgentConfiguration/pacing``) in priority order,
/// triggered checks first; retransmissions with a doubling timeout; peer-reflexive remote
/// candidates from checks that arrive from unknown addresses; role conflicts (RFC 8445
/// §7.3.1.1, 487); regular nomination as the controlling agent (the best valid pair, once
/// checks settle, checked again with USE-CANDIDATE); following the peer's nomination as the
/// controlled one; ICE-lite peers (we are then controlling); consent freshness on the selected
/// pair (RFC 7675). Peer-reflexive local candidates (a mapped address we did not know) are not
/// added: the pair's base is what media uses either way.
package struct ICEAgent: Sendable {
    package let configuration: ICEAgentConfiguration
    package let localCredentials: ICECredentials
    package private(set) var localCandidates: [ICECandidate] { didSet { statisticsGeneration &+= 1 } }
    /// The peer's candidates: signaled, resolved later, and learned from its checks.
    package private(set) var remoteCandidates: [ICECandidate] = [] { didSet { statisticsGeneration &+= 1 } }
    package private(set) var role: ICERole
    package private(set) var remoteCredentials: ICECredentials?
    package private(set) var remoteIsLite = false
    package private(set) var checkList: ICECheckList { didSet { statisticsGeneration &+= 1 } }
    package private(set) var state: ICEAgentState = .checking
    package private(set) var selectedPair: ICECandidatePair? { didSet { statisticsGeneration &+= 1 } }
    /// Changes whenever what ``statistics`` lists changes (a candidate, a pair's state, a
    /// counter, the selection), so a driver rebuilds its copy only then.
    package private(set) var statisticsGeneration: UInt64 = 0

    /// One pair: the local base it is checked from and the remote address.
    private struct PairKey: Hashable, Sendable {
        var base: TransportAddress
        var remote: TransportAddress
    }

    /// A check in flight.
    private struct Transaction: Sendable {
        var id: [UInt8]
        var pair: PairKey
        var bytes: [UInt8]
        var transmissions: Int
        var timeout: MediaTime
        var nextRetransmission: MediaTime
        var useCandidate: Bool
        var isConsent: Bool
        /// Our role when it was sent: a 487 answer means "not that role".
        var sentAsControlling: Bool
        /// A triggered check replaced it (RFC 8445 §7.3.1.4): not retransmitted, and its lack
        /// of an answer fails nothing, but an answer still counts until its timeout.
        var cancelled = false
        /// When it was first sent, for the round trip of an answer to it.
        var sentAt: MediaTime
    }

    /// What each pair's checks did, by pair.
    private var pairCounters: [PairKey: ICEPairCounters] = [:] { didSet { statisticsGeneration &+= 1 } }

    private var random: any RandomNumberGenerator & Sendable
    private var transactions: [Transaction] = []
    private var triggered: [PairKey] = []
    private var nextCheckAt: MediaTime?
    private var firstValidAt: MediaTime?
    /// Controlling: the pair being nominated. Controlled: pairs the peer nominated before their
    /// own check succeeded.
    private var nominating: PairKey?
    /// Controlled: each with whether a higher NOMINATION made it a renomination.
    private var nominateOnSuccess: [PairKey: Bool] = [:]
    private var lastConsent: MediaTime = .zero
    /// When the selected pair was last chosen: a peer's nomination of another pair well after
    /// it is a renomination (the peer moved), one just after it is aggressive nomination's.
    private var selectedAt: MediaTime?
    /// Controlling: how many times we renominated (NOMINATION counts from 2). Controlled: the
    /// highest NOMINATION the peer sent, which a renomination must exceed.
    private var renominations: UInt32 = 0
    private var peerNomination: UInt32 = 1
    private var nextConsentAt: MediaTime?
    /// Some of the peer's candidates are still to come (names being resolved): no failure yet.
    private var remoteCandidatesPending = false
    /// Checks that arrived before the peer's credentials did (RFC 8445 §7.3: processed then).
    private var earlyCheckSources: [(source: TransportAddress, base: TransportAddress, priority: UInt32)] = []

    /// An agent with its local candidates (gathered already: SIP carries them all in the offer).
    package init(
        configuration: ICEAgentConfiguration = ICEAgentConfiguration(), credentials: ICECredentials, candidates: [ICECandidate],
        isControlling: Bool, random: any RandomNumberGenerator & Sendable
    ) {
        self.configuration = configuration
        self.localCredentials = credentials
        self.localCandidates = candidates
        self.random = random
        role = ICERole(isControlling: isControlling, tieBreaker: self.random.next())
        checkList = ICECheckList(local: [], remote: [], localIsControlling: isControlling)
    }

    /// Each pair of the check list, with its state, whether it is selected, and its checks'
    /// counters (W3C `RTCIceCandidatePairStats`).
    package var pairStatistics: [ICEPairStats] {
        let selected = selectedPair.map { PairKey(base: $0.local.base, remote: $0.remote.address) }
        return checkList.pairs.map { pair in
            let key = PairKey(base: pair.local.base, remote: pair.remote.address)
            return ICEPairStats(pair: pair, isSelected: key == selected, counters: pairCounters[key] ?? ICEPairCounters())
        }
    }

    /// Both sides' candidates and every pair's stats (W3C `RTCIceCandidateStats` and
    /// `RTCIceCandidatePairStats`). Builds arrays: a driver asks only when
    /// ``statisticsGeneration`` moved.
    package var statistics: ICEStatistics {
        ICEStatistics(
            localCandidates: localCandidates, remoteCandidates: remoteCandidates, pairs: pairStatistics, localIsControlling: role.isControlling)
    }

    // MARK: - Events

    /// The peer's credentials and candidates arrived (its offer or answer): the check list forms
    /// and checks start at the next tick. An ICE-lite peer sends no checks, so we control.
    /// With `moreCandidatesComing` (some of the peer's are names still being resolved), an
    /// empty or exhausted list does not fail the agent until ``addRemoteCandidates(_:final:now:)``
    /// says the last have come.
    package mutating func setRemote(
        credentials: ICECredentials, candidates: [ICECandidate], isLite: Bool, moreCandidatesComing: Bool = false, now: MediaTime
    ) -> [ICEAgentAction] {
        remoteCandidatesPending = moreCandidatesComing
        remoteCredentials = credentials
        remoteIsLite = isLite
        remoteCandidates = candidates
        if isLite && !role.isControlling { role.isControlling = true }
        checkList = ICECheckList(local: localCandidates, remote: candidates, localIsControlling: role.isControlling)
        nextCheckAt = now
        var actions: [ICEAgentAction] = []
        for early in earlyCheckSources {
            learnPeerReflexive(early.source, base: early.base, priority: early.priority)
            trigger(PairKey(base: early.base, remote: early.source))
        }
        earlyCheckSources = []
        actions += checkFailure()
        return actions
    }

    /// Candidates of the peer's learned after its description (its `.local` names resolved):
    /// a peer-reflexive candidate already learned at the same address becomes the signaled one
    /// (kind, priority, foundation), its pair keeping its state and nomination, the selected
    /// pair included; other addresses form new pairs that start waiting. With `final`, no more
    /// are coming, and the agent fails if nothing is left to try.
    package mutating func addRemoteCandidates(_ candidates: [ICECandidate], final: Bool, now: MediaTime) -> [ICEAgentAction] {
        guard state != .failed, remoteCredentials != nil else { return [] }
        let local = localCandidates
        for candidate in candidates {
            checkList.addRemote(candidate, local: local)
            remoteCandidates.removeAll { $0.address == candidate.address && $0.component == candidate.component && $0.kind == .peerReflexive }
            // The same candidate again (trickled twice, a name resolved twice) is listed once.
            if !remoteCandidates.contains(candidate) { remoteCandidates.append(candidate) }
        }
        if let selected = selectedPair, let index = checkList.index(localBase: selected.local.base, remote: selected.remote.address) {
            let remote = checkList.pairs[index].remote
            selectedPair?.remote = remote
        }
        if nextCheckAt == nil { nextCheckAt = now }
        if final { remoteCandidatesPending = false }
        return checkFailure()
    }

    /// Time passed: paced checks, retransmissions, nomination, consent.
    package mutating func tick(now: MediaTime) -> [ICEAgentAction] {
        guard state != .failed else { return [] }
        var actions = retransmit(now: now)
        if let send = pacedCheck(now: now) { actions.append(send) }
        actions += nominateIfDue(now: now)
        actions += consent(now: now)
        actions += checkFailure()
        return actions
    }

    /// A datagram arrived on `base` from `source`; it may be anything (RTP, DTLS): what is not
    /// a STUN Binding message gives no action.
    package mutating func receive(_ bytes: [UInt8], from source: TransportAddress, on base: TransportAddress, now: MediaTime) -> [ICEAgentAction] {
        guard state != .failed, STUNMessage.looksLikeSTUN(bytes), let message = try? STUNMessage(parsing: bytes) else { return [] }
        switch message.type {
        case .bindingRequest:
            return receiveCheck(bytes, from: source, on: base, now: now)
        case .bindingSuccess, .bindingError:
            return receiveResponse(bytes, transactionID: message.transactionID, from: source, on: base, now: now)
        default:
            return []
        }
    }

    // MARK: - Checks we send

    /// The next check, when pacing allows one now. Pacing counts from the last check sent: with
    /// nothing to send, the next check (one a peer's arrival triggers) may go at once.
    private mutating func pacedCheck(now: MediaTime) -> ICEAgentAction? {
        guard let due = nextCheckAt, now >= due, remoteCredentials != nil, let send = nextCheck(now: now) else { return nil }
        nextCheckAt = now + configuration.pacing
        return send
    }

    private mutating func nextCheck(now: MediaTime) -> ICEAgentAction? {
        while let key = triggered.first {
            triggered.removeFirst()
            // A pair the replaced check's answer validated meanwhile needs no new check.
            if let index = checkList.index(localBase: key.base, remote: key.remote), checkList.pairs[index].state == .waiting {
                return startCheck(index, useCandidate: nominating == key, now: now)
            }
        }
        if let index = checkList.pairs.firstIndex(where: { $0.state == .waiting }) {
            return startCheck(index, useCandidate: false, now: now)
        }
        // No pair waits: the highest frozen pair starts (one check list: RFC 8445 §6.1.4.2).
        if let index = checkList.pairs.firstIndex(where: { $0.state == .frozen }) {
            return startCheck(index, useCandidate: false, now: now)
        }
        return nil
    }

    private mutating func startCheck(_ index: Int, useCandidate: Bool, now: MediaTime, isConsent: Bool = false) -> ICEAgentAction? {
        guard let remote = remoteCredentials else { return nil }
        let pair = checkList.pairs[index]
        if !isConsent { checkList.setState(.inProgress, at: index) }
        let id = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
        let priority = ICECandidate.priority(
            kind: .peerReflexive, localPreference: UInt16((pair.local.priority >> 8) & 0xFFFF), component: pair.local.component)
        let bytes = ICEConnectivityCheck.request(
            transactionID: id, local: localCredentials, remote: remote, priority: priority, role: role, useCandidate: useCandidate,
            nomination: useCandidate && selectedPair != nil ? 1 + renominations : nil)
        let key = PairKey(base: pair.local.base, remote: pair.remote.address)
        transactions.removeAll { $0.pair == key && $0.isConsent == isConsent && !$0.cancelled }
        transactions.append(
            Transaction(
                id: id, pair: key, bytes: bytes, transmissions: 1, timeout: configuration.initialRetransmissionTimeout,
                nextRetransmission: now + configuration.initialRetransmissionTimeout, useCandidate: useCandidate, isConsent: isConsent,
                sentAsControlling: role.isControlling, sentAt: now))
        if isConsent { pairCounters[key, default: ICEPairCounters()].consentRequestsSent += 1 } else { pairCounters[key, default: ICEPairCounters()].requestsSent += 1 }
        return .send(bytes, from: key.base, to: key.remote)
    }

    private mutating func retransmit(now: MediaTime) -> [ICEAgentAction] {
        var actions: [ICEAgentAction] = []
        var kept: [Transaction] = []
        for var transaction in transactions {
            guard now >= transaction.nextRetransmission else {
                kept.append(transaction)
                continue
            }
            // A consent check is sent once; the next one follows at the consent interval. A
            // cancelled check is not sent again (its pair has a newer one). Either's answer
            // still counts within the answer window: a round trip longer than the
            // retransmission timeout must not make every answer come too late.
            if transaction.isConsent || transaction.cancelled {
                if now - transaction.sentAt < configuration.answerWindow { kept.append(transaction) }
                continue
            }
            guard transaction.transmissions < configuration.maximumTransmissions else {
                // No answer: the pair failed. A nominating check that goes unanswered fails
                // its pair too (it had succeeded before), so the next best valid pair is
                // nominated, or the agent fails, instead of nominating the dead one forever.
                if let index = checkList.index(localBase: transaction.pair.base, remote: transaction.pair.remote),
                    checkList.pairs[index].state == .inProgress || transaction.useCandidate
                {
                    checkList.setState(.failed, at: index)
                }
                if nominating == transaction.pair { nominating = nil }
                continue
            }
            transaction.transmissions += 1
            pairCounters[transaction.pair, default: ICEPairCounters()].retransmissionsSent += 1
            transaction.timeout = min(transaction.timeout + transaction.timeout, .seconds(1))
            transaction.nextRetransmission = now + transaction.timeout
            actions.append(.send(transaction.bytes, from: transaction.pair.base, to: transaction.pair.remote))
            kept.append(transaction)
        }
        transactions = kept
        return actions
    }

    private mutating func trigger(_ key: PairKey) {
        guard let index = checkList.index(localBase: key.base, remote: key.remote) else { return }
        switch checkList.pairs[index].state {
        case .succeeded: return
        case .inProgress:
            // RFC 8445 §7.3.1.4: the check in progress (its request or answer may be lost, as
            // when the peer restarted after we sent it) is cancelled and a new one goes out at
            // once, instead of waiting for a retransmission.
            for position in transactions.indices where transactions[position].pair == key && !transactions[position].isConsent {
                transactions[position].cancelled = true
            }
            checkList.setState(.waiting, at: index)
        case .failed, .frozen, .waiting: checkList.setState(.waiting, at: index)
        }
        if !triggered.contains(key) { triggered.append(key) }
        if nextCheckAt == nil { nextCheckAt = .zero }
    }

    // MARK: - Checks we receive

    private mutating func receiveCheck(_ bytes: [UInt8], from source: TransportAddress, on base: TransportAddress, now: MediaTime) -> [ICEAgentAction] {
        let check: ICEReceivedCheck
        switch ICEConnectivityCheck.readRequest(bytes, local: localCredentials, remoteFragment: remoteCredentials?.usernameFragment) {
        case .success(let received): check = received
        case .failure(.notACheck): return []
        case .failure(let error): return [.refused(error, from: source)]
        }
        // Every check that authenticates is answered below: a success, or a role conflict's 487.
        pairCounters[PairKey(base: base, remote: source), default: ICEPairCounters()].requestsReceived += 1
        pairCounters[PairKey(base: base, remote: source), default: ICEPairCounters()].responsesSent += 1
        // Role conflict (RFC 8445 §7.3.1.1).
        if check.role.isControlling == role.isControlling {
            let weWin = role.tieBreaker >= check.role.tieBreaker
            if role.isControlling == weWin {
                // We keep our role; the peer must switch.
                return [.send(ICEConnectivityCheck.errorResponse(487, reason: "Role Conflict", transactionID: check.transactionID, local: localCredentials), from: base, to: source)]
            }
            switchRole()
        }
        var actions: [ICEAgentAction] = [
            .send(ICEConnectivityCheck.successResponse(to: check, from: source, local: localCredentials), from: base, to: source)
        ]
        guard remoteCredentials != nil else {
            earlyCheckSources.append((source, base, check.priority))
            return actions
        }
        let key = PairKey(base: base, remote: source)
        learnPeerReflexive(source, base: base, priority: check.priority)
        trigger(key)
        if check.useCandidate, !role.isControlling {
            // A higher NOMINATION than any before says "renomination" outright.
            var renominated = false
            if let nomination = check.nomination, nomination > peerNomination {
                peerNomination = nomination
                renominated = true
            }
            if let index = checkList.index(localBase: base, remote: source), checkList.pairs[index].state == .succeeded {
                actions += select(index, now: now, replacing: renominated || isRenomination(now: now))
            } else {
                nominateOnSuccess[key] = renominated || nominateOnSuccess[key] == true
            }
        }
        // A check the peer's arrival triggered goes out now when pacing allows, not at the
        // next tick: a peer that moved is followed as soon as its new address answers.
        if triggered.first == key, let send = pacedCheck(now: now) { actions.append(send) }
        return actions
    }

    /// A check from an address no remote candidate has: a peer-reflexive remote candidate
    /// (RFC 8445 §7.3.1.3), paired with the base it arrived on.
    private mutating func learnPeerReflexive(_ source: TransportAddress, base: TransportAddress, priority: UInt32) {
        guard checkList.index(localBase: base, remote: source) == nil,
            let local = localCandidates.first(where: { $0.base == base && $0.kind == .host }) ?? localCandidates.first(where: { $0.base == base })
        else { return }
        let remote = ICECandidate(
            kind: .peerReflexive, component: local.component, address: source, base: source, priority: priority,
            foundation: ICECandidate.foundation(kind: .peerReflexive, base: source.ip, server: nil))
        _ = checkList.insert(ICECandidatePair(local: local, remote: remote, state: .waiting))
        if !remoteCandidates.contains(where: { $0.address == source && $0.component == local.component }) { remoteCandidates.append(remote) }
    }

    // MARK: - Answers to our checks

    private mutating func receiveResponse(
        _ bytes: [UInt8], transactionID: [UInt8], from source: TransportAddress, on base: TransportAddress, now: MediaTime
    ) -> [ICEAgentAction] {
        guard let position = transactions.firstIndex(where: { $0.id == transactionID }), let remote = remoteCredentials else { return [] }
        let transaction = transactions[position]
        // Non-symmetric answers fail the check (RFC 8445 §7.2.5.2.1); answers that do not
        // authenticate are dropped and the transaction goes on.
        let response: ICECheckResponse
        switch ICEConnectivityCheck.readResponse(bytes, remote: remote) {
        case .success(let read): response = read
        case .failure(.notACheck): return []
        case .failure(let error): return [.refused(error, from: source)]
        }
        transactions.remove(at: position)
        pairCounters[transaction.pair, default: ICEPairCounters()].responsesReceived += 1
        if case .success = response, transaction.transmissions == 1, source == transaction.pair.remote, base == transaction.pair.base {
            pairCounters[transaction.pair, default: ICEPairCounters()].measured(now - transaction.sentAt)
        }
        if transaction.cancelled {
            // A cancelled check's answer can only help (its pair has a newer check in flight):
            // a symmetric success counts, anything else is dropped.
            guard case .success = response, source == transaction.pair.remote, base == transaction.pair.base else { return [] }
            return succeeded(transaction, now: now)
        }
        guard source == transaction.pair.remote, base == transaction.pair.base else {
            setState(.failed, of: transaction.pair)
            return []
        }
        switch response {
        case .roleConflict:
            // The opposite of the role the check was sent with (RFC 8445 §7.2.5.1), which a
            // conflicting check from the peer may have given us already.
            if role.isControlling == transaction.sentAsControlling { switchRole() }
            setState(.waiting, of: transaction.pair)
            trigger(transaction.pair)
            return []
        case .error:
            if !transaction.isConsent { setState(.failed, of: transaction.pair) }
            return []
        case .success:
            return succeeded(transaction, now: now)
        }
    }

    private mutating func succeeded(_ transaction: Transaction, now: MediaTime) -> [ICEAgentAction] {
        var actions: [ICEAgentAction] = []
        if transaction.isConsent || selectedPair.map({ PairKey(base: $0.local.base, remote: $0.remote.address) == transaction.pair }) == true {
            lastConsent = now
            if state == .disconnected {
                state = .connected
                actions.append(.consentRestored)
            }
        }
        guard let index = checkList.index(localBase: transaction.pair.base, remote: transaction.pair.remote) else { return actions }
        checkList.setState(.succeeded, at: index)
        if firstValidAt == nil { firstValidAt = now }
        // Pairs of the same foundation now have a good chance: unfreeze them (§7.2.5.3.3).
        let foundation = checkList.pairs[index].foundation
        for other in checkList.pairs.indices where checkList.pairs[other].state == .frozen && checkList.pairs[other].foundation == foundation {
            checkList.setState(.waiting, at: other)
        }
        if role.isControlling, transaction.useCandidate {
            actions += select(index, now: now, replacing: true)
        } else if !role.isControlling, let renominated = nominateOnSuccess.removeValue(forKey: transaction.pair) {
            actions += select(index, now: now, replacing: renominated || isRenomination(now: now))
        }
        return actions
    }

    private mutating func setState(_ state: ICECandidatePair.State, of key: PairKey) {
        if let index = checkList.index(localBase: key.base, remote: key.remote) { checkList.setState(state, at: index) }
    }

    private mutating func switchRole() {
        role.isControlling.toggle()
        checkList.setLocalIsControlling(role.isControlling)
        nominating = nil
    }

    // MARK: - Nomination and selection

    /// Controlling: once the first pair is valid and the nomination delay has passed (or no
    /// check is pending), the best valid pair is checked again with USE-CANDIDATE.
    private mutating func nominateIfDue(now: MediaTime) -> [ICEAgentAction] {
        guard role.isControlling, selectedPair == nil, nominating == nil, let first = firstValidAt else { return [] }
        let pending = checkList.pairs.contains { $0.state == .waiting || $0.state == .inProgress }
        // The wait is for better pairs still being checked: when the best pair that can still
        // succeed already has (the pairs are in priority order), there is nothing to wait for.
        let bestStillPossible = checkList.pairs.first { $0.state != .failed }
        let nothingBetterCanCome = bestStillPossible?.state == .succeeded
        guard now >= first + configuration.nominationDelay || !pending || nothingBetterCanCome else { return [] }
        guard let best = checkList.pairs.firstIndex(where: { $0.state == .succeeded }) else { return [] }
        return nominateValidPair(best, now: now)
    }

    /// Checks the valid pair at `index` again with USE-CANDIDATE; it stays valid meanwhile.
    private mutating func nominateValidPair(_ index: Int, now: MediaTime) -> [ICEAgentAction] {
        let pair = checkList.pairs[index]
        nominating = PairKey(base: pair.local.base, remote: pair.remote.address)
        guard let send = startCheck(index, useCandidate: true, now: now) else { return [] }
        checkList.setState(.succeeded, at: index)  // it stays valid while the nominating check runs
        return [send]
    }

    /// Selects the pair at `index`, nominated. A pair selected already stays unless the new one
    /// has a higher priority or `replacing` (a renomination: ours, or the peer's well after
    /// its first, RFC 8445 §8.1.1's "the peer moved" case that draft-thatcher-ice-renomination
    /// makes explicit).
    private mutating func select(_ index: Int, now: MediaTime, replacing: Bool = false) -> [ICEAgentAction] {
        checkList.setState(.succeeded, at: index)
        checkList.setNominated(at: index)
        let pair = checkList.pairs[index]
        if let current = selectedPair {
            let same = current.local.base == pair.local.base && current.remote.address == pair.remote.address
            let better = current.priority(localIsControlling: role.isControlling) < pair.priority(localIsControlling: role.isControlling)
            guard !same, better || replacing else { return [] }
        }
        selectedPair = pair
        selectedAt = now
        state = .connected
        lastConsent = now
        nextConsentAt = now + jitteredConsentInterval()
        return [.selected(pair)]
    }

    /// Whether a nomination by the peer now is a renomination: it comes at least
    /// ``ICEAgentConfiguration/renominationGuard`` after our selection.
    private func isRenomination(now: MediaTime) -> Bool {
        selectedAt.map { now - $0 >= configuration.renominationGuard } ?? false
    }

    // MARK: - The host's addresses changed (make before break)

    /// The host's usable addresses changed under a connected agent (rtnetlink said so, before
    /// any re-INVITE), with the credentials in force; RFC 8445 §7.3.1.3 lets the peer learn a
    /// new address of ours as peer-reflexive from our checks.
    /// - Pairs from an address that is gone fail, and their checks stop.
    /// - Each new address of the selected pair's family becomes a host candidate on `port`
    ///   (the media socket's: it is bound to the wildcard), paired with the selected pair's
    ///   remote candidate and checked at once.
    /// - When the selected pair's address is gone and we control, the first new pair's check
    ///   nominates it (USE-CANDIDATE: its success selects it, and the peer follows); with no new
    ///   address, the best pair left that is valid is nominated. A controlled agent only checks:
    ///   the peer decides.
    /// Nothing before a pair is selected, nor after the agent failed.
    package mutating func localAddressesChanged(_ addresses: [IPAddress], port: UInt16, now: MediaTime) -> [ICEAgentAction] {
        guard state != .failed, remoteCredentials != nil, let selected = selectedPair else { return [] }
        let usable = Set(addresses)
        let hostBases = Set(localCandidates.filter { $0.kind == .host }.map(\.base))
        let gone = hostBases.filter { !usable.contains($0.ip) }
        for index in checkList.pairs.indices where gone.contains(checkList.pairs[index].local.base) {
            checkList.setState(.failed, at: index)
        }
        transactions.removeAll { gone.contains($0.pair.base) }
        triggered.removeAll { gone.contains($0.base) }
        if let key = nominating, gone.contains(key.base) { nominating = nil }
        let selectedGone = gone.contains(selected.local.base)
        var actions: [ICEAgentAction] = []
        var preference = localCandidates.filter { $0.kind == .host }.map { UInt16(truncatingIfNeeded: $0.priority >> 8) }.min() ?? 65_535
        for ip in addresses where ip.isIPv6 == selected.remote.address.ip.isIPv6 && !ip.isUnspecified {
            let base = TransportAddress(ip: ip, port: port)
            guard !hostBases.contains(base) else { continue }
            preference = preference > 256 ? preference - 256 : 0
            let candidate = ICECandidate.local(.host, component: selected.local.component, address: base, base: base, localPreference: preference)
            localCandidates.append(candidate)
            let index = checkList.insert(ICECandidatePair(local: candidate, remote: selected.remote, state: .waiting))
            let nominates = selectedGone && role.isControlling && nominating == nil
            if nominates {
                nominating = PairKey(base: base, remote: selected.remote.address)
                renominations += 1
            }
            if let send = startCheck(index, useCandidate: nominates, now: now) { actions.append(send) }
        }
        if selectedGone, role.isControlling, nominating == nil,
            let best = checkList.pairs.firstIndex(where: { $0.state == .succeeded && !gone.contains($0.local.base) })
        {
            renominations += 1
            actions += nominateValidPair(best, now: now)
        }
        return actions
    }

    // MARK: - Consent (RFC 7675)

    private mutating func consent(now: MediaTime) -> [ICEAgentAction] {
        guard let pair = selectedPair, let due = nextConsentAt else { return [] }
        var actions: [ICEAgentAction] = []
        if state == .connected, now - lastConsent >= configuration.consentTimeout {
            state = .disconnected
            actions.append(.consentLost)
        }
        if now >= due {
            nextConsentAt = now + jitteredConsentInterval()
            if let index = checkList.index(localBase: pair.local.base, remote: pair.remote.address),
                let send = startCheck(index, useCandidate: false, now: now, isConsent: true)
            {
                actions.append(send)
            }
        }
        return actions
    }

    private mutating func jitteredConsentInterval() -> MediaTime {
        let base = configuration.consentInterval.nanoseconds
        return MediaTime(nanoseconds: base * 8 / 10 + Int64.random(in: 0...(base * 4 / 10), using: &random))
    }

    // MARK: - Failure

    /// Failed once nothing is left to try and nothing was selected.
    private mutating func checkFailure() -> [ICEAgentAction] {
        guard state == .checking, remoteCredentials != nil, selectedPair == nil, !remoteCandidatesPending else { return [] }
        let alive = checkList.pairs.contains { $0.state != .failed } || !transactions.isEmpty || !triggered.isEmpty
        guard !alive else { return [] }
        state = .failed
        return [.failed]
    }
}
