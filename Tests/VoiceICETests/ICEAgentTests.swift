import VoiceAddress
import VoiceSTUN
import VoiceNetwork
import VoiceSupport
import VoiceTestAudio
import XCTest

@testable import VoiceICE

/// Two agents through a simulated network in virtual time: what RFC 8445 and RFC 7675 say
/// should happen, happens, in milliseconds of wall-clock time.
final class ICEAgentTests: XCTestCase {
    private static func address(_ text: String) -> TransportAddress {
        let colon = text.lastIndex(of: ":")!
        return TransportAddress(ip: IPAddress(String(text[..<colon]))!, port: UInt16(text[text.index(after: colon)...])!)
    }

    /// Two agents, a network between them with latency, loss rules and NATs, and virtual time.
    private struct World {
        var agents: [ICEAgent]
        var actions: [[ICEAgentAction]] = [[], []]
        var now = MediaTime.zero
        var latency = MediaTime.milliseconds(10)
        /// Datagrams for which this is true are lost.
        var drops: (_ from: TransportAddress, _ to: TransportAddress) -> Bool = { _, _ in false }
        /// Datagrams whose bytes make this true are lost too.
        var dropsBytes: ([UInt8]) -> Bool = { _ in false }
        /// Source rewriting (a NAT): base → public address, and back for what arrives there.
        var nat: [TransportAddress: TransportAddress] = [:]
        /// Agents that are never ticked: they only answer (what an ICE-lite peer does).
        var passive: Set<Int> = []
        private var inFlight: [(at: MediaTime, bytes: [UInt8], from: TransportAddress, to: TransportAddress)] = []

        init(_ a: ICEAgent, _ b: ICEAgent) { agents = [a, b] }

        /// Each agent gets the other's credentials and candidates (or those given); with
        /// `namesPending`, those it gets are not all: the rest are names being resolved.
        mutating func exchangeCandidates(
            aLite: Bool = false, bLite: Bool = false, aCandidates: [ICECandidate]? = nil, bCandidates: [ICECandidate]? = nil,
            namesPending: Bool = false
        ) {
            let a = agents[0], b = agents[1]
            actions[0] += agents[0].setRemote(
                credentials: b.localCredentials, candidates: bCandidates ?? b.localCandidates, isLite: bLite,
                moreCandidatesComing: namesPending && bCandidates != nil, now: now)
            actions[1] += agents[1].setRemote(
                credentials: a.localCredentials, candidates: aCandidates ?? a.localCandidates, isLite: aLite,
                moreCandidatesComing: namesPending && aCandidates != nil, now: now)
        }

        /// Agent `index`'s host now has `addresses` (its media port stays).
        mutating func addressesChanged(_ index: Int, _ addresses: [String], port: UInt16) {
            handle(agents[index].localAddressesChanged(addresses.compactMap { IPAddress($0) }, port: port, now: now), of: index)
        }

        /// Runs until `done` holds (or `limit` passes); returns the virtual time it took.
        mutating func run(until done: (World) -> Bool, limit: MediaTime = .seconds(1)) -> MediaTime {
            let start = now
            while !done(self), now - start < limit { run(for: .milliseconds(1), step: .milliseconds(1)) }
            return now - start
        }

        /// Agent `index` learns the candidates its peer's names resolved to.
        mutating func resolve(_ index: Int, _ candidates: [ICECandidate]) {
            actions[index] += agents[index].addRemoteCandidates(candidates, final: true, now: now)
        }

        private func owner(of address: TransportAddress) -> (Int, TransportAddress)? {
            let local = nat.first { $0.value == address }?.key ?? address
            for (index, agent) in agents.enumerated() where agent.localCandidates.contains(where: { $0.base == local }) { return (index, local) }
            return nil
        }

        mutating func run(for duration: MediaTime, step: MediaTime = .milliseconds(5)) {
            let end = now + duration
            while now < end {
                now += step
                for index in agents.indices where !passive.contains(index) { handle(agents[index].tick(now: now), of: index) }
                let due = inFlight.filter { $0.at <= now }
                inFlight.removeAll { $0.at <= now }
                for datagram in due {
                    guard let (index, base) = owner(of: datagram.to) else { continue }
                    handle(agents[index].receive(datagram.bytes, from: datagram.from, on: base, now: now), of: index)
                }
            }
        }

        private mutating func handle(_ new: [ICEAgentAction], of index: Int) {
            actions[index] += new
            for case .send(let bytes, let from, let to) in new where !drops(from, to) && !dropsBytes(bytes) {
                inFlight.append((now + latency, bytes, nat[from] ?? from, to))
            }
        }

        func selected(_ index: Int) -> [ICECandidatePair] {
            actions[index].compactMap { if case .selected(let pair) = $0 { pair } else { nil } }
        }

        func count(_ index: Int, _ match: (ICEAgentAction) -> Bool) -> Int { actions[index].filter(match).count }
    }

    private func agent(_ bases: [String], controlling: Bool, seed: UInt64) -> ICEAgent {
        var random = SplitMix64(seed: seed)
        let candidates = bases.map { ICECandidate.local(.host, address: Self.address($0), base: Self.address($0)) }
        return ICEAgent(credentials: .random(using: &random), candidates: candidates, isControlling: controlling, random: SplitMix64(seed: seed + 1))
    }

    func testTwoAgentsSelectTheSamePairQuickly() {
        var world = World(agent(["10.0.0.1:5000", "10.0.1.1:5002"], controlling: true, seed: 1), agent(["10.0.0.2:6000"], controlling: false, seed: 7))
        world.drops = { from, _ in from.ip == IPAddress("10.0.1.1")! }  // one of alice's interfaces goes nowhere
        world.exchangeCandidates()
        world.run(for: .seconds(1))
        let a = world.selected(0), b = world.selected(1)
        XCTAssertEqual(a.count, 1)
        XCTAssertEqual(b.count, 1)
        XCTAssertEqual(a.first?.local.base, Self.address("10.0.0.1:5000"))
        XCTAssertEqual(a.first?.remote.address, Self.address("10.0.0.2:6000"))
        XCTAssertEqual(b.first?.local.base, Self.address("10.0.0.2:6000"))
        XCTAssertEqual(b.first?.remote.address, Self.address("10.0.0.1:5000"))
        XCTAssertEqual(world.agents[0].state, .connected)
        XCTAssertEqual(world.agents[1].state, .connected)
        XCTAssertTrue(world.agents[0].role.isControlling)
        XCTAssertFalse(world.agents[1].role.isControlling)
    }

    func testARoleConflictLeavesExactlyOneControllingAgent() {
        // Both start controlling, then both controlled; tie-breakers won by either side.
        var winners = Set<Int>()
        for (seeds, controlling) in [((3, 11), true), ((11, 3), true), ((5, 6), false), ((6, 5), false)] {
            var world = World(
                agent(["10.0.0.1:5000"], controlling: controlling, seed: UInt64(seeds.0)),
                agent(["10.0.0.2:6000"], controlling: controlling, seed: UInt64(seeds.1)))
            world.exchangeCandidates()
            world.run(for: .seconds(2))
            XCTAssertNotEqual(world.agents[0].role.isControlling, world.agents[1].role.isControlling, "\(seeds)")
            XCTAssertEqual(world.selected(0).count, 1, "\(seeds)")
            XCTAssertEqual(world.selected(1).count, 1, "\(seeds)")
            // The higher tie-breaker controls, whoever started with which role.
            let winner = world.agents[0].role.tieBreaker >= world.agents[1].role.tieBreaker ? 0 : 1
            XCTAssertTrue(world.agents[winner].role.isControlling, "\(seeds)")
            winners.insert(winner)
        }
        XCTAssertEqual(winners, [0, 1], "each side won once")
    }

    func testAPeerBehindANATIsReachedThroughItsPeerReflexiveAddress() {
        // Alice offers only her private address; a NAT maps it to 203.0.113.1:40000, and
        // nothing from outside reaches 10.0.0.1 directly.
        var world = World(agent(["10.0.0.1:5000"], controlling: false, seed: 5), agent(["198.51.100.2:6000"], controlling: true, seed: 9))
        world.nat = [Self.address("10.0.0.1:5000"): Self.address("203.0.113.1:40000")]
        world.drops = { _, to in to.ip == IPAddress("10.0.0.1")! }
        world.exchangeCandidates()
        world.run(for: .seconds(2))
        XCTAssertEqual(world.selected(1).last?.remote.address, Self.address("203.0.113.1:40000"))
        XCTAssertEqual(world.selected(1).last?.remote.kind, .peerReflexive)
        XCTAssertEqual(world.selected(0).last?.remote.address, Self.address("198.51.100.2:6000"))
    }

    /// RFC 8445 §7.3.1.4: a check from the peer on a pair whose own check is still unanswered
    /// cancels that check and sends a new one at once. (Before, the pair waited for the 500 ms
    /// retransmission: a move's ICE restart lost half a second of audio when the peer's first
    /// check had reached the agent it replaced.)
    func testAPeerCheckOnAPairWhoseCheckIsUnansweredSendsANewOneAtOnce() {
        final class Flag: @unchecked Sendable { var value = false }
        var world = World(agent(["10.0.0.1:5000"], controlling: false, seed: 61), agent(["10.0.0.2:6000"], controlling: true, seed: 62))
        let dropped = Flag()
        // Alice's first check is lost.
        world.drops = { from, _ in
            guard from.ip == IPAddress("10.0.0.1")!, !dropped.value else { return false }
            dropped.value = true
            return true
        }
        world.exchangeCandidates()
        world.run(for: .milliseconds(200))
        XCTAssertTrue(dropped.value)
        XCTAssertEqual(world.selected(0).count, 1, "alice selected in 200 ms, without waiting for her retransmission")
        XCTAssertEqual(world.selected(1).count, 1)
        XCTAssertEqual(world.selected(0).first?.remote.address, Self.address("10.0.0.2:6000"))
        world.run(for: .seconds(2))
        XCTAssertEqual(world.selected(0).count, 1, "the cancelled check changes nothing later")
        XCTAssertEqual(world.agents[0].state, .connected)
    }

    func testWithNoPathBothAgentsFailOnceAndSendNothingMore() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 1), agent(["10.0.0.2:6000"], controlling: false, seed: 2))
        world.drops = { _, _ in true }
        world.exchangeCandidates()
        world.run(for: .seconds(10))
        XCTAssertEqual(world.count(0) { $0 == .failed }, 1)
        XCTAssertEqual(world.count(1) { $0 == .failed }, 1)
        XCTAssertEqual(world.agents[0].state, .failed)
        // Six transmissions of the one check, then nothing.
        XCTAssertEqual(world.count(0) { if case .send = $0 { true } else { false } }, 6)
        XCTAssertTrue(world.selected(0).isEmpty)
    }

    func testAPathThatDiesBeforeNominationFailsInsteadOfNominatingForever() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 51), agent(["10.0.0.2:6000"], controlling: false, seed: 52))
        // Checks pass, but every nominating check (USE-CANDIDATE) is lost.
        world.dropsBytes = { bytes in (try? STUNMessage(parsing: bytes))?.attribute(STUNMessage.Attribute.useCandidate) != nil }
        world.exchangeCandidates()
        world.run(for: .seconds(20))
        XCTAssertTrue(world.selected(0).isEmpty)
        XCTAssertEqual(world.count(0) { $0 == .failed }, 1)
        XCTAssertEqual(world.agents[0].state, .failed)
        let sendsAfter = world.count(0) { if case .send = $0 { true } else { false } }
        world.run(for: .seconds(20))
        XCTAssertEqual(world.count(0) { if case .send = $0 { true } else { false } }, sendsAfter, "silent once failed")
    }

    func testConsentIsLostWhenThePeerGoesSilentAndReturnsWithIt() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 21), agent(["10.0.0.2:6000"], controlling: false, seed: 22))
        world.exchangeCandidates()
        world.run(for: .seconds(1))
        XCTAssertEqual(world.agents[0].state, .connected)
        // 40 s more with the path up: consent checks keep it fresh.
        world.run(for: .seconds(40))
        XCTAssertEqual(world.count(0) { $0 == .consentLost }, 0)
        let consentChecks = world.count(0) { if case .send = $0 { true } else { false } }
        XCTAssertGreaterThan(consentChecks, 7, "a consent check every 4–6 s (and answers to bob's)")

        var cut = world
        cut.drops = { _, _ in true }
        // The last answer came at most one consent interval (6 s) before the cut: consent
        // lasts 30 s from it.
        cut.run(for: .seconds(23))
        XCTAssertEqual(cut.count(0) { $0 == .consentLost }, 0, "not before 30 s since the last answer")
        cut.run(for: .seconds(8))
        XCTAssertEqual(cut.count(0) { $0 == .consentLost }, 1)
        XCTAssertEqual(cut.count(1) { $0 == .consentLost }, 1)
        XCTAssertEqual(cut.agents[0].state, .disconnected)
        cut.drops = { _, _ in false }
        cut.run(for: .seconds(7))
        XCTAssertEqual(cut.count(0) { $0 == .consentRestored }, 1)
        XCTAssertEqual(cut.agents[0].state, .connected)
    }

    func testForgedChecksAreRefusedUnansweredAndChangeNothing() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 31), agent(["10.0.0.2:6000"], controlling: false, seed: 32))
        world.exchangeCandidates()
        world.run(for: .seconds(1))
        var alice = world.agents[0]
        let selected = alice.selectedPair
        let attacker = Self.address("10.6.6.6:6666")
        let forged = ICEConnectivityCheck.request(
            transactionID: Array(repeating: 7, count: 12), local: world.agents[1].localCredentials,
            remote: ICECredentials(usernameFragment: alice.localCredentials.usernameFragment, password: "guessedguessedguessed0"),
            priority: 1, role: ICERole(isControlling: false, tieBreaker: 0), useCandidate: true)
        let actions = alice.receive(forged, from: attacker, on: Self.address("10.0.0.1:5000"), now: world.now)
        XCTAssertEqual(actions, [.refused(.badIntegrity, from: attacker)])
        XCTAssertEqual(alice.selectedPair, selected)
        XCTAssertNil(alice.checkList.index(localBase: Self.address("10.0.0.1:5000"), remote: attacker), "no peer-reflexive candidate learned")
        // Media, DTLS and junk on the port are not ICE's.
        XCTAssertEqual(alice.receive([0x80, 0x60] + Array(repeating: 0, count: 30), from: attacker, on: Self.address("10.0.0.1:5000"), now: world.now), [])
        XCTAssertEqual(alice.receive([22, 254, 253], from: attacker, on: Self.address("10.0.0.1:5000"), now: world.now), [])
    }

    func testAnICELitePeerMakesUsControlling() {
        // Bob stands in for a lite implementation: he only answers checks.
        var world = World(agent(["10.0.0.1:5000"], controlling: false, seed: 41), agent(["10.0.0.2:6000"], controlling: false, seed: 42))
        world.passive = [1]
        world.exchangeCandidates(bLite: true)
        world.run(for: .seconds(1))
        XCTAssertTrue(world.agents[0].role.isControlling)
        XCTAssertEqual(world.selected(0).first?.remote.address, Self.address("10.0.0.2:6000"))
        XCTAssertEqual(world.selected(0).first?.nominated, true)
    }

    // MARK: - Candidates learned late (a peer's mDNS names resolved)

    /// The peer hid its address behind a name; its check taught us the address as
    /// peer-reflexive and that pair was selected. When the name resolves, the same pair reads
    /// host (the SDP's kind, priority, foundation), with no new selection or check state lost.
    func testAResolvedNameUpgradesTheSelectedPeerReflexivePairInPlace() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 71), agent(["10.0.0.2:6000"], controlling: false, seed: 72))
        let hidden = world.agents[1].localCandidates
        world.exchangeCandidates(bCandidates: [], namesPending: true)
        world.run(for: .seconds(1))
        XCTAssertEqual(world.agents[0].selectedPair?.remote.kind, .peerReflexive)
        XCTAssertEqual(world.selected(0).count, 1)
        world.resolve(0, hidden)
        XCTAssertEqual(world.agents[0].selectedPair?.remote.kind, .host)
        XCTAssertEqual(world.agents[0].selectedPair?.remote.priority, hidden[0].priority)
        XCTAssertEqual(world.agents[0].selectedPair?.remote.foundation, hidden[0].foundation)
        XCTAssertEqual(world.agents[0].checkList.pairs.count, 1, "the pair was upgraded, not doubled")
        world.run(for: .seconds(1))
        XCTAssertEqual(world.agents[0].state, .connected)
        XCTAssertEqual(world.selected(0).count, 1, "no second selection")
    }

    /// Neither side can reach the other until a name resolves: the agent waits, not fails, and
    /// checks the resolved host candidate straight away.
    func testAnAgentWaitsForNamesAndChecksTheResolvedHostCandidate() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 73), agent(["10.0.0.2:6000"], controlling: false, seed: 74))
        let hidden = world.agents[1].localCandidates
        world.exchangeCandidates(aCandidates: [], bCandidates: [], namesPending: true)
        world.run(for: .seconds(2))
        XCTAssertEqual(world.agents[0].state, .checking)
        XCTAssertEqual(world.count(0) { if case .failed = $0 { true } else { false } }, 0)
        XCTAssertEqual(world.count(0) { if case .send = $0 { true } else { false } }, 0, "nothing to check yet")
        world.resolve(0, hidden)
        world.run(for: .seconds(1))
        XCTAssertEqual(world.agents[0].selectedPair?.remote.kind, .host)
        XCTAssertEqual(world.agents[0].selectedPair?.remote.address, Self.address("10.0.0.2:6000"))
        XCTAssertEqual(world.agents[1].state, .connected, "the far side learned us from our checks")
    }

    /// A name that did not resolve leaves nothing to try: the agent fails when the lookup ends,
    /// not before.
    func testAnAgentFailsWhenItsLastNameResolvesToNothing() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 75), agent(["10.0.0.2:6000"], controlling: false, seed: 76))
        world.exchangeCandidates(aCandidates: [], bCandidates: [], namesPending: true)
        world.run(for: .milliseconds(500))
        XCTAssertEqual(world.agents[0].state, .checking)
        world.resolve(0, [])
        XCTAssertEqual(world.agents[0].state, .failed)
        XCTAssertEqual(world.count(0) { if case .failed = $0 { true } else { false } }, 1)
    }

    // MARK: - The host's addresses change (make before break)

    /// Alice (controlling) loses her address and has a new one: her first check from it
    /// nominates the pair, she selects it on the answer, and Bob, who learns her new address as
    /// peer-reflexive, follows once his own check from the nomination's trigger is answered:
    /// three one-way trips, with no signaling. Consent then holds on the new pair.
    func testAControllingAgentWhoseAddressGoesMovesBothSidesInThreeTrips() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 61), agent(["10.0.0.2:6000"], controlling: false, seed: 62))
        world.exchangeCandidates()
        world.run(for: .seconds(2))
        XCTAssertEqual(world.selected(1).count, 1)
        world.drops = { from, to in from.ip == IPAddress("10.0.0.1")! || to.ip == IPAddress("10.0.0.1")! }
        world.addressesChanged(0, ["10.0.0.9"], port: 5000)
        let took = world.run(until: { $0.selected(1).count == 2 })
        XCTAssertLessThanOrEqual(took, .milliseconds(31), "three one-way trips of 10 ms")
        XCTAssertEqual(world.selected(0).last?.local.base, Self.address("10.0.0.9:5000"))
        XCTAssertEqual(world.selected(0).last?.remote.address, Self.address("10.0.0.2:6000"))
        XCTAssertEqual(world.selected(1).last?.remote.address, Self.address("10.0.0.9:5000"))
        XCTAssertEqual(world.selected(1).last?.remote.kind, .peerReflexive)
        world.run(for: .seconds(40))
        XCTAssertEqual(world.count(0) { $0 == .consentLost } + world.count(1) { $0 == .consentLost }, 0, "consent holds on the new pair")
        XCTAssertEqual(world.selected(0).count, 2)
        XCTAssertEqual(world.selected(1).count, 2)
    }

    /// A new address beside the old one is checked (the peer learns it) but nothing moves;
    /// when the old one then goes, the pair already valid is nominated and both sides move
    /// within one trip.
    func testANewAddressIsCheckedAheadAndTakenAtOnceWhenTheOldGoes() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 63), agent(["10.0.0.2:6000"], controlling: false, seed: 64))
        world.exchangeCandidates()
        world.run(for: .seconds(2))
        world.addressesChanged(0, ["10.0.0.1", "10.0.0.9"], port: 5000)
        world.run(for: .milliseconds(100))
        XCTAssertEqual(world.selected(0).count, 1, "nothing moved")
        XCTAssertEqual(world.selected(1).count, 1)
        let learned = world.agents[1].checkList.index(localBase: Self.address("10.0.0.2:6000"), remote: Self.address("10.0.0.9:5000"))
        XCTAssertEqual(learned.map { world.agents[1].checkList.pairs[$0].state }, .succeeded, "Bob checked Alice's new address")
        world.drops = { from, to in from.ip == IPAddress("10.0.0.1")! || to.ip == IPAddress("10.0.0.1")! }
        world.addressesChanged(0, ["10.0.0.9"], port: 5000)
        let took = world.run(until: { $0.selected(0).count == 2 && $0.selected(1).count == 2 })
        XCTAssertLessThanOrEqual(took, .milliseconds(21), "the nominating check and its answer")
        XCTAssertEqual(world.selected(1).last?.remote.address, Self.address("10.0.0.9:5000"))
    }

    /// A controlled agent that moves only checks from its new address: the controlling peer
    /// decides (our calls move it with the ICE restart that follows).
    func testAControlledAgentWhoseAddressGoesOnlyChecks() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 65), agent(["10.0.0.2:6000"], controlling: false, seed: 66))
        world.exchangeCandidates()
        world.run(for: .seconds(2))
        world.drops = { from, to in from.ip == IPAddress("10.0.0.2")! || to.ip == IPAddress("10.0.0.2")! }
        world.addressesChanged(1, ["10.0.0.8"], port: 6000)
        world.run(for: .milliseconds(200))
        XCTAssertEqual(world.selected(0).count, 1)
        XCTAssertEqual(world.selected(1).count, 1)
        let learned = world.agents[0].checkList.index(localBase: Self.address("10.0.0.1:5000"), remote: Self.address("10.0.0.8:6000"))
        XCTAssertEqual(learned.map { world.agents[0].checkList.pairs[$0].state }, .succeeded, "Alice learned and checked it")
    }

    /// Our renominations carry NOMINATION (WebRTC's draft-thatcher-ice-renomination): the
    /// controlled side follows one at once, however soon after its selection.
    func testOurRenominationCarriesNominationAndIsFollowedAtOnce() {
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 67), agent(["10.0.0.2:6000"], controlling: false, seed: 68))
        world.exchangeCandidates()
        _ = world.run(until: { $0.selected(1).count == 1 })
        world.run(for: .milliseconds(100))
        let sent = world.actions[0].count
        world.addressesChanged(0, ["10.0.0.9"], port: 5000)
        let check = world.actions[0].dropFirst(sent).compactMap { action -> STUNMessage? in
            guard case .send(let bytes, _, _) = action else { return nil }
            return try? STUNMessage(parsing: bytes)
        }.first
        XCTAssertNotNil(check?.attribute(STUNMessage.Attribute.useCandidate))
        XCTAssertEqual(check?.attribute(STUNMessage.Attribute.nomination)?.value, [0, 0, 0, 2], "the second nomination")
        world.run(for: .milliseconds(100))
        XCTAssertEqual(world.selected(1).count, 2, "followed 100 ms after the first selection")
        XCTAssertEqual(world.selected(1).last?.remote.address, Self.address("10.0.0.9:5000"))
    }

    /// A USE-CANDIDATE without NOMINATION on another valid pair within a second of the
    /// selection is aggressive nomination's (RFC 5245): the equal pair selected stays. The
    /// same check later is a renomination (the peer moved) and is followed.
    func testAPlainNominationJustAfterSelectionIsNotARenomination() {
        for (wait, follows) in [(MediaTime.milliseconds(300), false), (.seconds(2), true)] {
            var world = World(
                agent(["10.0.0.1:5000", "10.0.1.1:5002"], controlling: true, seed: 69), agent(["10.0.0.2:6000"], controlling: false, seed: 70))
            world.exchangeCandidates()
            _ = world.run(until: { $0.selected(1).count == 1 })
            world.run(for: wait)
            var bob = world.agents[1]
            let selected = bob.selectedPair
            let other = selected?.remote.address == Self.address("10.0.0.1:5000") ? Self.address("10.0.1.1:5002") : Self.address("10.0.0.1:5000")
            let index = bob.checkList.index(localBase: Self.address("10.0.0.2:6000"), remote: other)
            XCTAssertEqual(index.map { bob.checkList.pairs[$0].state }, .succeeded, "both of Alice's addresses were checked")
            let plain = ICEConnectivityCheck.request(
                transactionID: Array(repeating: 9, count: 12), local: world.agents[0].localCredentials, remote: bob.localCredentials,
                priority: 1, role: world.agents[0].role, useCandidate: true)
            let actions = bob.receive(plain, from: other, on: Self.address("10.0.0.2:6000"), now: world.now)
            let reselected = actions.contains { if case .selected = $0 { true } else { false } }
            XCTAssertEqual(reselected, follows, "\(wait)")
            XCTAssertEqual(bob.selectedPair?.remote.address, follows ? other : selected?.remote.address, "\(wait)")
        }
    }
}

extension ICEAgentTests {
    /// Each pair's checks are counted as `RTCIceCandidatePairStats` counts them: requests and
    /// answers both ways, retransmissions apart, consent checks apart, and the round trip of a
    /// check answered on its first transmission.
    func testPairStatisticsCountTheChecksAndTheirRoundTrip() throws {
        var world = World(agent(["10.0.0.1:5000", "10.0.1.1:5002"], controlling: true, seed: 1), agent(["10.0.0.2:6000"], controlling: false, seed: 7))
        world.drops = { from, _ in from.ip == IPAddress("10.0.1.1")! }
        world.exchangeCandidates()
        world.run(for: .seconds(1))
        let ours = world.agents[0].pairStatistics
        XCTAssertEqual(ours.count, 2)
        let working = try XCTUnwrap(ours.first { $0.pair.local.base == Self.address("10.0.0.1:5000") })
        XCTAssertTrue(working.isSelected)
        XCTAssertEqual(working.pair.state, .succeeded)
        XCTAssertGreaterThanOrEqual(working.counters.requestsSent, 2, "a check, then the nominating one")
        XCTAssertEqual(working.counters.responsesReceived, working.counters.requestsSent, "every check answered")
        XCTAssertEqual(working.counters.retransmissionsSent, 0)
        XCTAssertEqual(working.counters.currentRoundTripTime, .milliseconds(20), "10 ms each way")
        XCTAssertEqual(working.counters.roundTripTimeMeasurements, working.counters.responsesReceived)
        XCTAssertEqual(working.counters.totalRoundTripTime, .milliseconds(20 * Int64(working.counters.roundTripTimeMeasurements)))

        let dead = try XCTUnwrap(ours.first { $0.pair.local.base == Self.address("10.0.1.1:5002") })
        XCTAssertFalse(dead.isSelected)
        // Its checks go nowhere; the peer's reach it and trigger new ones (each a request).
        XCTAssertGreaterThanOrEqual(dead.counters.requestsSent, 1)
        XCTAssertGreaterThan(dead.counters.retransmissionsSent, 0)
        XCTAssertGreaterThan(dead.counters.requestsReceived, 0)
        XCTAssertEqual(dead.counters.responsesSent, dead.counters.requestsReceived, "answered, though the answers are lost")
        XCTAssertEqual(dead.counters.responsesReceived, 0)
        XCTAssertNil(dead.counters.currentRoundTripTime)

        let theirs = try XCTUnwrap(world.agents[1].pairStatistics.first { $0.isSelected })
        XCTAssertEqual(theirs.pair.remote.address, Self.address("10.0.0.1:5000"))
        XCTAssertEqual(theirs.counters.requestsReceived, working.counters.requestsSent, "what we sent, it received")
        XCTAssertEqual(theirs.counters.responsesSent, theirs.counters.requestsReceived)

        let before = working.counters
        world.run(for: .seconds(12))
        let later = try XCTUnwrap(world.agents[0].pairStatistics.first { $0.isSelected }).counters
        XCTAssertGreaterThan(later.consentRequestsSent, 0, "consent checks, counted apart")
        XCTAssertEqual(later.requestsSent, before.requestsSent)
        XCTAssertGreaterThanOrEqual(later.responsesReceived + 1, before.responsesReceived + later.consentRequestsSent, "each answered (the last may be in flight)")
    }

    func testStatisticsListBothSidesAndChangeOnlyWhenSomethingDid() throws {
        var world = World(agent(["10.0.0.1:5000", "10.0.1.1:5002"], controlling: true, seed: 1), agent(["10.0.0.2:6000"], controlling: false, seed: 7))
        world.drops = { from, _ in from.ip == IPAddress("10.0.1.1")! }
        world.exchangeCandidates()
        world.run(for: .seconds(1))
        let ours = world.agents[0].statistics
        XCTAssertEqual(ours.localCandidates.map(\.address), [Self.address("10.0.0.1:5000"), Self.address("10.0.1.1:5002")])
        XCTAssertEqual(ours.remoteCandidates.map(\.address), [Self.address("10.0.0.2:6000")])
        XCTAssertTrue(ours.localIsControlling)
        XCTAssertEqual(ours.pairs.map(\.pair.nominated), [true, false], "the pair nominated is marked so in the list, not only in the selection")
        let theirs = world.agents[1].statistics
        XCTAssertFalse(theirs.localIsControlling)
        XCTAssertEqual(theirs.pairs.filter(\.pair.nominated).map(\.pair.remote.address), [Self.address("10.0.0.1:5000")])
        // The dead interface's datagrams are all lost, so the peer learned nothing from it.
        XCTAssertEqual(theirs.remoteCandidates.map(\.kind), [.host, .host])

        // A tick with nothing due changes nothing, and the generation stays (a driver then
        // copies nothing); a consent check later moves it.
        var quiet = world.agents[0]
        let generation = quiet.statisticsGeneration
        XCTAssertEqual(quiet.tick(now: world.now).count, 0)
        XCTAssertEqual(quiet.statisticsGeneration, generation)
        XCTAssertEqual(quiet.statistics, ours)
        let consentBefore = try XCTUnwrap(ours.pairs.first(where: \.isSelected)).counters.consentRequestsSent
        world.run(for: .seconds(8))
        let consentAfter = try XCTUnwrap(world.agents[0].statistics.pairs.first(where: \.isSelected)).counters.consentRequestsSent
        XCTAssertGreaterThan(consentAfter, consentBefore, "consent checks went out")
        XCTAssertNotEqual(world.agents[0].statisticsGeneration, generation, "and moved the generation")
    }

    func testAPeerReflexiveCandidateIsListedAmongTheRemoteOnes() throws {
        // The peer signals nothing; its checks teach us its address.
        var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 1), agent(["10.0.0.2:6000"], controlling: false, seed: 7))
        world.exchangeCandidates(bCandidates: [], namesPending: true)
        world.run(for: .seconds(1))
        let remote = world.agents[0].statistics.remoteCandidates
        XCTAssertEqual(remote.map(\.kind), [.peerReflexive])
        XCTAssertEqual(remote.map(\.address), [Self.address("10.0.0.2:6000")])
    }

    /// A round trip longer than the first retransmission timeout (a satellite hop): the
    /// answers to checks a triggered check replaced, and to consent checks (sent once), still
    /// count. Before, both agents cancelled each other's checks forever at 300 ms, and at 600 ms
    /// consent ran out after 30 s.
    func testALongRoundTripConnectsAndKeepsConsent() throws {
        for oneWay: Int64 in [150, 300, 450] {
            var world = World(agent(["10.0.0.1:5000"], controlling: true, seed: 1), agent(["10.0.0.2:6000"], controlling: false, seed: 7))
            world.latency = .milliseconds(oneWay)
            world.exchangeCandidates()
            world.run(for: .seconds(5))
            XCTAssertNotNil(world.agents[0].selectedPair, "\(oneWay) ms each way")
            XCTAssertNotNil(world.agents[1].selectedPair, "\(oneWay) ms each way")
            world.run(for: .seconds(40))
            XCTAssertEqual(world.agents[0].state, .connected, "consent kept at \(oneWay) ms each way")
            XCTAssertEqual(world.agents[1].state, .connected)
            let counters = try XCTUnwrap(world.agents[0].pairStatistics.first(where: \.isSelected)).counters
            XCTAssertGreaterThan(counters.consentRequestsSent, 5)
            XCTAssertEqual(counters.currentRoundTripTime, .milliseconds(2 * oneWay))
        }
    }
}
