import VoiceAddress
import VoiceDTLS
import VoiceICE
import VoiceMediaPath
import VoiceMediaTypes
import VoiceRTP
import VoiceTestAudio
import VoiceSupport
import XCTest

/// The media path as a value, with no socket: two paths back to back on a virtual clock, each
/// with a real DTLS association in memory.
final class MediaPathTests: XCTestCase {
    func testTwoPathsSelectAPairAndKeyEachOthersDirections() throws {
        let h = try MediaPathHarness()
        h.start()
        for side in [h.a, h.b] {
            let check = try XCTUnwrap(h.other(side).inbox.first, "each side's first check leaves with the start, not at a tick")
            XCTAssertEqual(check.bytes.withUnsafeBytes { MediaDatagramKind($0) }, .stun)
        }
        XCTAssertTrue(h.a.path.isSettingUp)
        XCTAssertEqual(h.a.path.gate, .shut, "nothing passes before the keys")
        XCTAssertTrue(h.run(until: { h.bothKeyed }), "a: \(h.a.path.phase), b: \(h.b.path.phase)")

        let keysA = try XCTUnwrap(h.a.keys)
        let keysB = try XCTUnwrap(h.b.keys)
        XCTAssertEqual(keysA.local, keysB.remote)
        XCTAssertEqual(keysA.remote, keysB.local)
        for side in [h.a, h.b] {
            guard case .keyed(let route, let suite) = side.path.phase else { return XCTFail("\(side.path.phase)") }
            XCTAssertEqual(route.destination, h.other(side).address)
            XCTAssertFalse(route.viaRelay)
            XCTAssertEqual(suite, keysA.suite)
            XCTAssertFalse(side.path.isSettingUp)
            XCTAssertEqual(side.routes.last?.destination, h.other(side).address, "the stream's media moved to the route")
            let figures = side.path.figures
            XCTAssertEqual(figures.dtlsState, .connected)
            XCTAssertEqual(figures.srtpSuite, keysA.suite)
            let pair = try XCTUnwrap(figures.selectedPair)
            XCTAssertEqual(pair.localKind, .host)
            XCTAssertEqual(pair.remote, h.other(side).address)
            let routedAt = try XCTUnwrap(figures.routedAt)
            let keyedAt = try XCTUnwrap(figures.keyedAt)
            XCTAssertLessThanOrEqual(routedAt, keyedAt)
            XCTAssertEqual(side.events.count, 1)
            guard case .connected(let reported, let destination, _) = side.events.first else { return XCTFail("\(side.events)") }
            XCTAssertEqual(reported, pair)
            XCTAssertEqual(destination, h.other(side).address)
        }
        var stats = AudioStreamStats()
        h.a.path.figures.add(to: &stats)
        XCTAssertEqual(stats.dtlsState, .connected)
        XCTAssertEqual(stats.selectedCandidatePair?.description, "host 10.0.0.1:4000 -> host 10.0.0.2:5000")
        XCTAssertTrue(h.strays.isEmpty)
    }

    func testCandidatesThatCannotPairFailThePathAtStart() throws {
        let v6 = MediaPathHarness.host(try MediaPathHarness.address("2001:db8::2", 5_000))
        let h = try MediaPathHarness(bCandidates: [v6])
        XCTAssertNil(h.a.path.failure, "made, not started: the failure is reported at the start")
        h.start()
        XCTAssertEqual(h.a.path.failure, .noCandidatePair(local: 1, remote: 1))
        XCTAssertEqual(h.a.events, [.failed(.noCandidatePair(local: 1, remote: 1))])
        XCTAssertEqual(h.a.path.figures.dtlsState, .new, "nothing was tried")
        XCTAssertFalse(h.a.path.isSettingUp)
        h.step()
        XCTAssertEqual(h.a.events.count, 1, "reported once")
    }

    func testKeysTheSRTPLibraryRefusesFailThePath() throws {
        let h = try MediaPathHarness()
        h.b.refuseKeys = "bad key length"
        h.start()
        XCTAssertTrue(h.run(until: { h.b.path.failure != nil }))
        guard case .dtls(.handshakeFailed(let text)) = h.b.path.failure else { return XCTFail("\(h.b.path.phase)") }
        XCTAssertTrue(text.contains("bad key length"), text)
        XCTAssertEqual(h.b.path.gate, .shut)
        XCTAssertEqual(h.b.path.figures.dtlsState, .failed)
        XCTAssertEqual(h.b.events.count, 1)
    }

    func testDTLSFromAnAddressThePeerNeverProvedIsDropped() throws {
        let h = try MediaPathHarness()
        h.start()
        let stranger = try MediaPathHarness.address("10.0.0.9", 6_000)
        let hello: [UInt8] = [22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 20)
        var effects: [MediaPath.Effect] = []
        h.drive(h.a) { path in
            effects = path.receiveDTLS(hello, from: stranger, now: h.now)
            return effects
        }
        XCTAssertTrue(effects.isEmpty)
        XCTAssertEqual(h.a.path.figures.offPathDTLS, 1)
        guard case .checking = h.a.path.phase else { return XCTFail("\(h.a.path.phase)") }
    }

    func testConsentLossStopsSendingButNotReceivingAndComesBack() throws {
        var configuration = ICEAgentConfiguration()
        configuration.consentTimeout = .seconds(2)
        configuration.consentInterval = .milliseconds(500)
        let h = try MediaPathHarness(configuration: configuration)
        h.start()
        XCTAssertTrue(h.run(until: { h.bothKeyed }))
        h.b.delivers = false
        XCTAssertTrue(h.run(until: { h.a.path.gate == .receiveOnly }, limit: .seconds(5)), "\(h.a.events)")
        XCTAssertEqual(h.a.events.last, .consentLost)
        h.b.delivers = true
        XCTAssertTrue(h.run(until: { h.a.path.gate == .open }, limit: .seconds(5)), "\(h.a.events)")
        XCTAssertEqual(h.a.events.last, .consentRestored)
    }

    func testAnICERestartKeepsTheKeysAndTheRouteUntilTheNewAgentSelects() throws {
        let h = try MediaPathHarness()
        h.start()
        XCTAssertTrue(h.run(until: { h.bothKeyed }))
        var random = SplitMix64(seed: 99)
        let newA = ICECredentials.random(using: &random)
        let newB = ICECredentials.random(using: &random)
        let candidateA = MediaPathHarness.host(h.a.address)
        let candidateB = MediaPathHarness.host(h.b.address)
        h.drive(h.a) {
            $0.restartICE(
                .init(localCredentials: newA, localCandidates: [candidateA], isControlling: true,
                      remote: .init(credentials: newB, candidates: [candidateB], isLite: false)), now: h.now)
        }
        h.drive(h.b) {
            $0.restartICE(
                .init(localCredentials: newB, localCandidates: [candidateB], isControlling: false,
                      remote: .init(credentials: newA, candidates: [candidateA], isLite: false)), now: h.now)
        }
        XCTAssertTrue(h.a.path.isSettingUp, "the new agent checks")
        XCTAssertEqual(h.a.path.gate, .open, "media goes on over the route in force")
        XCTAssertTrue(h.run(until: { !h.a.path.isSettingUp && !h.b.path.isSettingUp }))
        XCTAssertEqual(h.a.path.figures.iceRestarts, 1)
        XCTAssertTrue(h.bothKeyed)
        XCTAssertEqual(h.a.events.count, 1, "connected once: DTLS was not redone (\(h.a.events))")
    }

    func testClosingSendsCloseNotifyAlongTheRouteAndEndsThePath() throws {
        let h = try MediaPathHarness()
        h.start()
        XCTAssertTrue(h.run(until: { h.bothKeyed }))
        let closeNotify = h.a.dtls.close()
        h.drive(h.a) { $0.close(closeNotify: closeNotify) }
        XCTAssertEqual(h.b.inbox.count, 1, "close_notify went to the peer")
        guard case .closed = h.a.path.phase else { return XCTFail("\(h.a.path.phase)") }
        XCTAssertEqual(h.a.path.gate, .shut)
        XCTAssertEqual(h.a.path.figures.dtlsState, .closed)
        h.step()
        XCTAssertEqual(h.b.path.figures.dtlsState, .closed, "the peer heard it")
        XCTAssertEqual(h.b.path.gate, .open, "a peer's close_notify is not a failure: its BYE ends the call")
        var afterwards: [MediaPath.Effect] = []
        h.drive(h.a) { path in
            afterwards = path.tick(now: h.now + .seconds(60))
            return afterwards
        }
        XCTAssertTrue(afterwards.isEmpty, "a closed path does nothing more")
    }

    func testAReallocationIsAnsweredOnceAndASupersededOneHearsNil() throws {
        let server = TransportAddress(ip: try XCTUnwrap(IPAddress("192.0.2.7")), port: 3_478)
        let relayed = TransportAddress(ip: try XCTUnwrap(IPAddress("192.0.2.7")), port: 50_000)
        let local = try MediaPathHarness.address("10.0.0.1", 4_000)
        let relay = TURNRelay(
            server: server, client: TURNClient(username: "u", password: "p", random: SplitMix64(seed: 1)), relayed: relayed,
            mapped: relayed)
        let peer = MediaPathHarness.host(try MediaPathHarness.address("10.0.0.2", 5_000))
        var random = SplitMix64(seed: 3)
        var path = MediaPath(
            localCredentials: .random(using: &random), localCandidates: [TURNRelay.candidate(relayed: relayed, mapped: relayed, server: server)],
            isControlling: true, remoteICE: .init(credentials: .random(using: &random), candidates: [peer], isLite: false),
            configuration: ICEAgentConfiguration(), relay: relay, localAddress: local, signaledRemote: local)
        _ = path.start(now: .zero)
        let first = path.reallocateRelay(request: 1, now: .milliseconds(10))
        XCTAssertTrue(first.contains { if case .sendToRelay = $0 { true } else { false } }, "an Allocate to the server")
        let second = path.reallocateRelay(request: 2, now: .milliseconds(20))
        let answers = second.compactMap { effect -> MediaPathEvent? in if case .event(let e) = effect { e } else { nil } }
        XCTAssertEqual(answers, [.relayReallocated(request: 1, candidates: [])])
        let answered = path.receiveSTUN([0, 1, 0, 0], from: try MediaPathHarness.address("10.0.0.2", 5_000), now: .milliseconds(30))
        XCTAssertTrue(answered.isEmpty)
        XCTAssertEqual(path.figures.refusedChecks, 1, "relay-only: a check straight to the port is refused, never answered")
    }
}
