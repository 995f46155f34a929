import VoiceEmbedded
import Foundation
import VoiceDTLS
import VoiceMedia
import VoiceRTP
import VoiceTestAudio
import VoiceService
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Calls through a real TURN server (coturn on loopback, RFC 8656): a client with the
/// relay-only policy offers only its relayed candidate, ICE selects the relayed pair, DTLS and
/// the audio go through coturn, and the allocation is given back at the end; a wrong TURN
/// password fails the call with 53405 before anything is offered.
final class CallTURNRelayTests: XCTestCase {
    private var directory: String?
    private var turn: TURNServerPeer?
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        turn?.stop()
        turn = nil
        if let directory, ProcessInfo.processInfo.environment["KEEP_TURN_LOG"] == nil { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// coturn's certificate for `localhost` (self-signed, trusted by the clients that are told so).
    private var certificateFile: String?

    private func startTURN(tls: Bool = false) throws -> TURNServerPeer {
        try TestPrerequisites.installed("turnserver")
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "turn")
        self.directory = directory
        var files: (certificate: String, key: String)?
        if tls {
            let (certificate, key) = try DTLSCertificate.generate(commonName: "localhost").pemEncoded()
            files = (directory + "/turn-cert.pem", directory + "/turn-key.pem")
            try certificate.write(toFile: directory + "/turn-cert.pem", atomically: true, encoding: .utf8)
            try key.write(toFile: directory + "/turn-key.pem", atomically: true, encoding: .utf8)
            certificateFile = directory + "/turn-cert.pem"
        }
        let server = try TURNServerPeer(directory: directory, tls: files)
        turn = server
        return server
    }

    private func client(_ name: String, tone: Double, configure: (inout VoiceClientConfiguration) -> Void = { _ in }) throws -> TestVoiceClient {
        let made = try TestVoiceClient(name, signal: ConnectedCallPair.tone(tone), configure: configure)
        clients.append(made)
        return made
    }

    private enum Reach { case udp, tcp, tls }

    private func relayOnly(_ turn: TURNServerPeer, password: String = TURNServerPeer.password, over reach: Reach = .udp)
        -> (inout VoiceClientConfiguration) -> Void
    {
        let url =
            switch reach {
            case .udp: turn.url
            case .tcp: turn.url + "?transport=tcp"
            case .tls: "turns:localhost:\(turn.tlsPort ?? 0)"
            }
        let trusted = certificateFile
        return { configuration in
            configuration.iceOptions = ICEOptions(
                servers: [try! ICEServer(url, username: TURNServerPeer.username, password: password)], transportPolicy: .relay)
            configuration.turnTrustedCertificatesFile = trusted
        }
    }

    private func stats(_ call: Call) throws -> AudioStreamStats? {
        try ConnectedCallPair.onCore(call) { $0?.media?.stats }
    }

    /// A preflight from a relay-only client, in real time through coturn, to an echo: it
    /// completes, says TURN was needed, and names the relayed pair and how the relay is reached.
    func testAPreflightThroughTheTURNServerReportsTheRelay() throws {
        let turn = try startTURN()
        let alice = try client("alice", tone: 440, configure: relayOnly(turn))
        let echo = try client("echo", tone: 0)
        let responder = EchoResponder()
        let notifications = ScriptedNotificationDelegate()
        notifications.onInvite.withLock { $0 = { responder.callInviteReceived($0) } }
        echo.listen(with: notifications)
        var options = PreflightOptions(destination: echo.address)
        options.duration = .seconds(4)
        options.delegateQueue = DispatchQueue(label: "test.preflight")
        let done = Locked<Result<PreflightReport, VoiceError>?>(nil)
        final class Waiter: PreflightDelegate, @unchecked Sendable {
            let done: Locked<Result<PreflightReport, VoiceError>?>
            init(_ done: Locked<Result<PreflightReport, VoiceError>?>) { self.done = done }
            func preflight(_ test: PreflightTest, didCompleteWith report: PreflightReport) { done.withLock { $0 = .success(report) } }
            func preflight(_ test: PreflightTest, didFailWithError error: VoiceError) { done.withLock { $0 = .failure(error) } }
        }
        alice.client.runPreflight(options: options, delegate: Waiter(done))
        XCTAssertTrue(PollingWait.until(timeout: 30) { done.withLock { $0 } != nil }, turn.process.logTail())
        let report = try XCTUnwrap(done.withLock { $0 }).get()
        print("preflight through coturn: \(report.callQuality as Any), MOS \(report.mos as Any), RTT \(report.roundTripTimeMs as Any), \(report.networkTiming)")
        XCTAssertEqual(report.isTURNRequired, true)
        let pair = try XCTUnwrap(report.selectedCandidatePair)
        XCTAssertEqual(pair.local.candidateType, .relayed)
        XCTAssertEqual(pair.local.relayProtocol, .udp)
        XCTAssertGreaterThan(pair.bytesReceived, 0, "the echo came back through the relay")
        XCTAssertEqual(report.localCandidates.map(\.candidateType), [.relayed], "relay-only")
        XCTAssertNotNil(report.callQuality)
        XCTAssertGreaterThanOrEqual(report.samples.count, 3)
        XCTAssertNotNil(report.networkTiming.ice)
        XCTAssertNotNil(report.networkTiming.dtls)
        XCTAssertEqual(try XCTUnwrap(report.packetsLostFraction).maximum, 0, "loopback loses nothing")
        XCTAssertTrue(PollingWait.until(timeout: 5) { responder.activeCalls == 0 })
    }

    func testARelayOnlyCallerTalksThroughTheTURNServer() throws {
        try checkRelayOnlyCall(over: .udp)
    }

    /// RFC 8656 over TCP (a network that blocks UDP): the allocation and everything relayed go
    /// over one TCP connection to the server, framed; the relay to bob is UDP as before.
    func testARelayOnlyCallerReachesTheTURNServerOverTCP() throws {
        try checkRelayOnlyCall(over: .tcp)
    }

    /// `turns:` (RFC 8656 over TLS, for networks that pass only TLS): coturn's certificate for
    /// `localhost` is checked, and the call's relay runs inside the TLS connection.
    func testARelayOnlyCallerReachesTheTURNServerOverTLS() throws {
        try checkRelayOnlyCall(over: .tls)
    }

    /// A `turns:` server whose certificate is not trusted gives no relay: the relay-only call
    /// fails with 53405 and says why.
    func testAnUntrustedTURNServerCertificateGivesNoRelay() throws {
        let turn = try startTURN(tls: true)
        certificateFile = nil
        let alice = try client("alice", tone: 440, configure: relayOnly(turn, over: .tls))
        let bob = try client("bob", tone: 660)
        let (call, delegate, _) = alice.call(acceptedBy: bob)
        XCTAssertEqual(delegate.wait(for: 1, timeout: 15), [.failed(.mediaConnectionError)])
        let reason = delegate.endError.withLock { $0 }?.failureReason ?? ""
        XCTAssertTrue(reason.contains("certificate"), reason)
        XCTAssertEqual(call.state, .disconnected)
        XCTAssertEqual(turn.allocations, 0)
    }

    private func checkRelayOnlyCall(over reach: Reach) throws {
        let tcp = reach != .udp
        let turn = try startTURN(tls: reach == .tls)
        let alice = try client("alice", tone: 440, configure: relayOnly(turn, over: reach))
        let bob = try client("bob", tone: 660)
        let (call, delegate, callee) = alice.call(acceptedBy: bob)
        XCTAssertEqual(Array(delegate.wait(for: 2, timeout: 15).prefix(2)), [.ringing, .connected], turn.process.logTail())
        XCTAssertTrue(PollingWait.until(timeout: 10) { ((try? self.stats(call))??.packetsReceived ?? 0) > 100 })
        let caller = try XCTUnwrap(try stats(call))
        XCTAssertEqual(caller.selectedCandidatePair?.localKind, .relayed, "\(caller.selectedCandidatePair as Any)")
        XCTAssertEqual(caller.dtlsState, .connected)
        XCTAssertEqual(caller.srtpAuthFailures, 0)
        // The report names the relay as W3C does: the relayed candidate's relayProtocol.
        let transport = try XCTUnwrap(try ConnectedCallPair.onCore(call) { $0?.statsReport() }).transport
        let relayProtocol: CallICECandidate.RelayProtocol = reach == .udp ? .udp : reach == .tcp ? .tcp : .tls
        XCTAssertEqual(transport.localCandidates.filter { $0.candidateType == .relayed }.map(\.relayProtocol), [relayProtocol])
        XCTAssertEqual(transport.selectedCandidatePair?.local.relayProtocol, relayProtocol)
        XCTAssertGreaterThan(transport.candidatePairs.first(where: \.selected)?.bytesReceived ?? 0, 0, "media came over the relayed pair")
        let answered = try XCTUnwrap(callee.value)
        let calleeStats = try XCTUnwrap(try stats(answered))
        XCTAssertTrue(
            calleeStats.selectedCandidatePair?.remoteKind == .relayed, "bob sends to alice's relayed address: \(calleeStats.selectedCandidatePair as Any)")
        XCTAssertEqual(turn.allocations, 1, turn.process.logTail())
        XCTAssertEqual(turn.process.log.contains("tcp or tls connected to"), tcp, "reached over \(tcp ? "TCP" : "UDP")")
        XCTAssertEqual(turn.process.log.contains(", method=TLSv1."), reach == .tls, "in TLS: \(reach)")
        let refreshes = turn.process.log.components(separatedBy: "\n").filter { $0.contains("refreshed") && $0.hasSuffix("lifetime=600") }
        XCTAssertEqual(refreshes, [], "no refresh this early")
        let heardByAlice = ConnectedCallPair.recordedLevel(of: alice.device, over: 1)
        let heardByBob = ConnectedCallPair.recordedLevel(of: bob.device, over: 1)
        XCTAssertGreaterThan(heardByAlice, 1_000)
        XCTAssertGreaterThan(heardByBob, 1_000)
        let alicePlayed = alice.device.recordedSamples
        XCTAssertGreaterThan(ToneAmplitude.of(660, in: alicePlayed), 4 * ToneAmplitude.of(440, in: alicePlayed), "alice hears bob's 660 Hz")
        let bobPlayed = bob.device.recordedSamples
        XCTAssertGreaterThan(ToneAmplitude.of(440, in: bobPlayed), 4 * ToneAmplitude.of(660, in: bobPlayed), "bob hears alice's 440 Hz")
        call.disconnect()
        delegate.waitForEnd()
        XCTAssertTrue(
            PollingWait.until(timeout: 5) { turn.process.log.contains("lifetime=0") },
            "the allocation is given back:\n\(turn.process.logTail())")
    }

    func testAWrongTURNPasswordFailsARelayOnlyCallWith53405() throws {
        let turn = try startTURN()
        let alice = try client("alice", tone: 440, configure: relayOnly(turn, password: "wrong"))
        let bob = try client("bob", tone: 660)
        let (call, delegate, _) = alice.call(acceptedBy: bob)
        XCTAssertEqual(delegate.wait(for: 1, timeout: 15), [.failed(.mediaConnectionError)])
        XCTAssertEqual(call.state, .disconnected)
    }
}
