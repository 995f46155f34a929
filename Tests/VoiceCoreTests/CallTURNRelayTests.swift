import Foundation
import NIOConcurrencyHelpers
import VoiceMedia
import VoiceRTP
import VoiceSignals
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

    private func startTURN() throws -> TURNServerPeer {
        switch SIPPeerRequirement.check("turnserver") {
        case .available: break
        case .skip(let message): throw XCTSkip(message)
        case .fail(let message):
            XCTFail(message)
            throw SIPPeerError(.notInstalled, message)
        }
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "turn")
        self.directory = directory
        let server = try TURNServerPeer(directory: directory)
        turn = server
        return server
    }

    private func client(_ name: String, tone: Double, configure: (inout VoiceClientConfiguration) -> Void = { _ in }) throws -> TestVoiceClient {
        let made = try TestVoiceClient(name, signal: ConnectedCallPair.tone(tone), configure: configure)
        clients.append(made)
        return made
    }

    private func relayOnly(_ turn: TURNServerPeer, password: String = TURNServerPeer.password, tcp: Bool = false)
        -> (inout VoiceClientConfiguration) -> Void
    {
        { configuration in
            configuration.iceOptions = ICEOptions(
                servers: [try! ICEServer(turn.url + (tcp ? "?transport=tcp" : ""), username: TURNServerPeer.username, password: password)],
                transportPolicy: .relay)
        }
    }

    /// Alice calls bob, who accepts.
    private func call(_ alice: TestVoiceClient, _ bob: TestVoiceClient) -> (Call, RecordingCallDelegate, NIOLockedBox<Call?>) {
        let calleeDelegate = RecordingCallDelegate()
        let accepted = NIOLockedBox<Call?>(nil)
        let notifications = bob.listen()
        notifications.onInvite.withLockedValue {
            $0 = { invite in
                accepted.value = invite.accept(
                    options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let delegate = RecordingCallDelegate()
        return (alice.connect(to: bob.address, delegate: delegate), delegate, accepted)
    }

    private func stats(_ call: Call) throws -> AudioStreamStats? {
        try ConnectedCallPair.onCore(call) { $0?.media?.stats }
    }

    func testARelayOnlyCallerTalksThroughTheTURNServer() throws {
        try checkRelayOnlyCall(tcp: false)
    }

    /// RFC 8656 over TCP (a network that blocks UDP): the allocation and everything relayed go
    /// over one TCP connection to the server, framed; the relay to bob is UDP as before.
    func testARelayOnlyCallerReachesTheTURNServerOverTCP() throws {
        try checkRelayOnlyCall(tcp: true)
    }

    private func checkRelayOnlyCall(tcp: Bool) throws {
        let turn = try startTURN()
        let alice = try client("alice", tone: 440, configure: relayOnly(turn, tcp: tcp))
        let bob = try client("bob", tone: 660)
        let (call, delegate, callee) = self.call(alice, bob)
        XCTAssertEqual(Array(delegate.wait(for: 2, timeout: 15).prefix(2)), [.ringing, .connected], turn.process.logTail())
        XCTAssertTrue(PollingWait.until(timeout: 10) { ((try? self.stats(call))??.packetsReceived ?? 0) > 100 })
        let caller = try XCTUnwrap(try stats(call))
        XCTAssertTrue(caller.selectedCandidatePair.hasPrefix("relay "), caller.selectedCandidatePair)
        XCTAssertEqual(caller.dtlsState, "connected")
        XCTAssertEqual(caller.srtpAuthFailures, 0)
        let answered = try XCTUnwrap(callee.value)
        let calleeStats = try XCTUnwrap(try stats(answered))
        XCTAssertTrue(
            calleeStats.selectedCandidatePair.contains("-> relay "), "bob sends to alice's relayed address: \(calleeStats.selectedCandidatePair)")
        XCTAssertEqual(turn.allocations, 1, turn.process.logTail())
        XCTAssertEqual(turn.process.log.contains("tcp or tls connected to"), tcp, "reached over \(tcp ? "TCP" : "UDP")")
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
        let (call, delegate, _) = self.call(alice, bob)
        XCTAssertEqual(delegate.wait(for: 1, timeout: 15), [.failed(.mediaConnectionError)])
        XCTAssertEqual(call.state, .disconnected)
    }
}
