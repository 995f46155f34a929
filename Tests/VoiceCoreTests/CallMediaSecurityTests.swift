import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceRTP
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// How calls are keyed (``MediaSecurity``): two clients at the default negotiate ICE and
/// DTLS-SRTP; an automatic caller falls back to SDES for an SDES-only callee; DTLS-only and
/// SDES-only cannot meet. In virtual time, with real streams on the in-memory networks.
final class CallMediaSecurityTests: VirtualTimeTestCase {
    private func client(
        _ name: String, tone: Double, _ security: MediaSecurity, reconnection: CallReconnectionPolicy? = nil
    ) throws -> TestVoiceClient {
        try TestVoiceClient(name, signal: ConnectedCallPair.tone(tone), world: world) {
            $0.mediaSecurity = security
            if let reconnection { $0.reconnection = reconnection }
        }
    }

    /// Alice (440 Hz) and bob (660 Hz) at the given settings, shut down after `body`.
    private func withClients(
        _ aliceSecurity: MediaSecurity, _ bobSecurity: MediaSecurity,
        reconnection: (alice: CallReconnectionPolicy, bob: CallReconnectionPolicy)? = nil,
        _ body: (TestVoiceClient, TestVoiceClient) throws -> Void
    ) throws {
        let alice = try client("alice", tone: 440, aliceSecurity, reconnection: reconnection?.alice)
        let bob = try client("bob", tone: 660, bobSecurity, reconnection: reconnection?.bob)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        try body(alice, bob)
    }

    private func stats(_ call: Call) throws -> AudioStreamStats? {
        try ConnectedCallPair.onCore(call) { $0?.media?.stats }
    }

    func testTwoClientsAtTheDefaultTalkOverICEAndDTLSSRTP() throws {
        try withClients(.automatic, .automatic) { alice, bob in
            let (call, delegate, callee) = alice.call(acceptedBy: bob)
            XCTAssertEqual(Array(delegate.wait(for: 2).prefix(2)), [.ringing, .connected])
            XCTAssertTrue(PollingWait.until(timeout: 10) { ((try? self.stats(call))??.packetsReceived ?? 0) > 100 })
            let caller = try XCTUnwrap(try stats(call))
            let answered = try XCTUnwrap(callee.value)
            let calleeStats = try XCTUnwrap(try stats(answered))
            for (name, s) in [("caller", caller), ("callee", calleeStats)] {
                XCTAssertEqual(s.dtlsState, .connected, name)
                XCTAssertEqual(s.dtlsSRTPSuite, .aeadAES128GCM, name)
                XCTAssertEqual(s.selectedCandidatePair?.localKind, .host, "\(name): \(s.selectedCandidatePair as Any)")
                XCTAssertEqual(s.srtpAuthFailures, 0, name)
            }
            let report = try XCTUnwrap(try ConnectedCallPair.onCore(call) { $0?.statsReport() })
            XCTAssertEqual(report.transport.dtlsState, .connected)
            XCTAssertEqual(report.transport.srtpCipher, .aeadAES128GCM)
            XCTAssertEqual(report.transport.selectedCandidatePair?.local.candidateType, .host)
            XCTAssertEqual(report.transport.selectedCandidatePair?.remote.candidateType, .host)
            XCTAssertTrue(report.transport.selectedCandidatePair?.remote.address.hasPrefix("127.") == true)
            let calleeReport = try XCTUnwrap(try ConnectedCallPair.onCore(answered) { $0?.statsReport() })
            try assertCandidatesAndPairs(report, caller, controlling: true, "caller")
            try assertCandidatesAndPairs(calleeReport, calleeStats, controlling: false, "callee")
            // Each side hears the other's tone.
            let heardByAlice = ConnectedCallPair.recordedLevel(of: alice.device, over: 1)
            let heardByBob = ConnectedCallPair.recordedLevel(of: bob.device, over: 1)
            XCTAssertGreaterThan(heardByAlice, 1_000)
            XCTAssertGreaterThan(heardByBob, 1_000)
            let alicePlayed = alice.device.recordedSamples
            XCTAssertGreaterThan(Goertzel.power(of: 660, in: alicePlayed), 10 * Goertzel.power(of: 440, in: alicePlayed), "alice hears bob's 660 Hz")
            call.disconnect()
            delegate.waitForEnd()
        }
    }

    /// The report lists both sides' candidates and the check list's pairs; the selected pair
    /// carries the stream's packets (more bytes than its RTP payloads: headers, RTCP, DTLS) and
    /// counts the checks that made it.
    private func assertCandidatesAndPairs(
        _ report: CallStatsReport, _ stream: AudioStreamStats, controlling: Bool, _ name: String
    ) throws {
        let transport = report.transport
        XCTAssertFalse(transport.localCandidates.isEmpty, name)
        XCTAssertFalse(transport.remoteCandidates.isEmpty, name)
        XCTAssertTrue(transport.localCandidates.allSatisfy { $0.priority != nil && $0.foundation != nil && $0.transportProtocol == "udp" }, name)
        XCTAssertTrue(transport.localCandidates.allSatisfy { $0.relayProtocol == nil }, "no relay: \(name)")
        let selected = transport.candidatePairs.filter(\.selected)
        XCTAssertEqual(selected.count, 1, name)
        let pair = try XCTUnwrap(selected.first)
        XCTAssertEqual(pair.state, .succeeded, name)
        XCTAssertTrue(pair.nominated, name)
        XCTAssertEqual(transport.selectedCandidatePair, CallICECandidatePair(local: pair.local, remote: pair.remote), name)
        XCTAssertNotNil(pair.local.priority, "the selected pair's ends come from the list: \(name)")
        XCTAssertGreaterThan(pair.priority, 0, name)
        XCTAssertGreaterThanOrEqual(pair.packetsSent, stream.packetsSent, "RTP, and RTCP and DTLS besides: \(name)")
        XCTAssertGreaterThan(pair.bytesSent, stream.bytesSent, "payloads and their headers: \(name)")
        XCTAssertGreaterThan(pair.packetsReceived, 100, name)
        XCTAssertGreaterThan(pair.bytesReceived, stream.bytesReceived, name)
        let unselected = transport.candidatePairs.filter { !$0.selected }
        XCTAssertEqual(unselected.map(\.bytesSent).reduce(0, +), 0, "no media on the others: \(name)")
        if controlling {
            XCTAssertGreaterThanOrEqual(pair.requestsSent, 1, name)
            XCTAssertGreaterThanOrEqual(pair.responsesReceived, 1, name)
            XCTAssertNotNil(pair.currentRoundTripTime, name)
            XCTAssertEqual(pair.totalRoundTripTime, pair.currentRoundTripTime.map { $0 * Double(pair.roundTripTimeMeasurements) } ?? -1, accuracy: 0.01, name)
        } else {
            XCTAssertGreaterThanOrEqual(pair.requestsReceived, 1, name)
            XCTAssertEqual(pair.responsesSent, pair.requestsReceived, name)
        }
    }

    func testACallWhoseMediaPathCannotBeMadeFailsToConnectWith53405() throws {
        try withClients(.automatic, .automatic) { alice, bob in
            // Signaling gets through; every media datagram is lost (a firewall that blocks UDP media).
            world.mediaNetwork.setConditions { _, _, _ in nil }
            let (call, delegate, _) = alice.call(acceptedBy: bob)
            XCTAssertEqual(delegate.wait(for: 2, timeout: 60), [.ringing, .failed(.mediaConnectionError)])
            XCTAssertEqual(call.state, .disconnected)
        }
    }

    /// RFC 7675: alice's consent checks stop getting answers (everything she sends is lost),
    /// while bob's media still reaches her. After the 30 s consent timeout her media stops and
    /// her call is reconnecting (53405), though she still hears bob; when the path comes back,
    /// her next consent check is answered and the call reconnects.
    func testLostConsentIsReconnectingUntilConsentReturns() throws {
        let policies = (
            alice: CallReconnectionPolicy(mediaSilenceThreshold: .milliseconds(3_000), mediaReconnectTimeout: .milliseconds(20_000)),
            // Bob hears nothing from alice meanwhile: he waits longer than her consent timeout.
            bob: CallReconnectionPolicy(mediaReconnectTimeout: .milliseconds(60_000)))
        try withClients(.dtls, .dtls, reconnection: policies) { alice, bob in
            let (call, delegate, _) = alice.call(acceptedBy: bob)
            XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
            let alicePort = try XCTUnwrap(try ConnectedCallPair.onCore(call) { $0?.media?.localPort })
            let blocked = Locked(true)
            let fromAlice = Locked(0)
            world.mediaNetwork.setConditions { source, _, _ in
                guard source.port == Int(alicePort) else { return .milliseconds(1) }
                fromAlice.withLock { $0 += 1 }
                return blocked.withLock { $0 } ? nil : .milliseconds(1)
            }
            let received = try XCTUnwrap(try stats(call)).packetsReceived
            XCTAssertEqual(delegate.wait(for: 3, timeout: 25), [.ringing, .connected], "bob's media keeps her connected before the consent timeout")
            XCTAssertGreaterThan(try XCTUnwrap(try stats(call)).packetsReceived, received + 1_000, "she hears bob")
            XCTAssertEqual(delegate.wait(for: 3, timeout: 10), [.ringing, .connected, .reconnecting(.mediaConnectionError)])
            let sentAtLoss = fromAlice.withLock { $0 }
            let countedAtLoss = try XCTUnwrap(try stats(call)).packetsSent
            PollingWait.sleep(2)
            // Her RTP would be 100 datagrams in 2 s; what may leave is STUN: her consent checks
            // (every 4–6 s) and her answers to bob's.
            XCTAssertLessThanOrEqual(fromAlice.withLock { $0 } - sentAtLoss, 4, "her media stopped")
            XCTAssertLessThanOrEqual(try XCTUnwrap(try stats(call)).packetsSent, countedAtLoss + 10, "and is not counted as sent")

            blocked.withLock { $0 = false }
            XCTAssertEqual(delegate.wait(for: 4, timeout: 8), [.ringing, .connected, .reconnecting(.mediaConnectionError), .reconnected])
            XCTAssertEqual(call.state, .connected)
            call.disconnect()
            delegate.waitForEnd()
        }
    }

    func testAnAutomaticCallerRetriesWithSDESWhenTheCalleeDoesOnlySDES() throws {
        try withClients(.automatic, .sdes) { alice, bob in
            let (call, delegate, _) = alice.call(acceptedBy: bob)
            XCTAssertEqual(Array(delegate.wait(for: 2).prefix(2)), [.ringing, .connected])
            XCTAssertTrue(PollingWait.until(timeout: 10) { ((try? self.stats(call))??.packetsReceived ?? 0) > 50 })
            let s = try XCTUnwrap(try stats(call))
            XCTAssertEqual(s.dtlsState, nil, "keyed by SDES")
            XCTAssertGreaterThan(ConnectedCallPair.recordedLevel(of: alice.device, over: 1), 1_000)
            call.disconnect()
            delegate.waitForEnd()
        }
    }

    func testAnSDESCallerIsAnsweredWithSDESByAnAutomaticCallee() throws {
        try withClients(.sdes, .automatic) { alice, bob in
            let (call, delegate, _) = alice.call(acceptedBy: bob)
            XCTAssertEqual(Array(delegate.wait(for: 2).prefix(2)), [.ringing, .connected])
            XCTAssertTrue(PollingWait.until(timeout: 10) { ((try? self.stats(call))??.packetsReceived ?? 0) > 50 })
            XCTAssertEqual(try XCTUnwrap(try stats(call)).dtlsState, nil)
            call.disconnect()
            delegate.waitForEnd()
        }
    }

    func testDTLSOnlyAndSDESOnlyCannotMeet() throws {
        try withClients(.dtls, .sdes) { alice, bob in
            let (_, delegate, callee) = alice.call(acceptedBy: bob)
            // 488 from bob's agent at once: no ringing, no incoming call for bob's app.
            XCTAssertEqual(delegate.wait(for: 1), [.failed(.mediaNoSupportedCodec)])
            XCTAssertNil(callee.value)
        }
    }

    func testAPersistedIdentityKeepsItsFingerprint() throws {
        let identity = try DTLSIdentity.generate()
        let pem = try identity.pemEncoded()
        let loaded = try DTLSIdentity(certificatePEM: pem.certificate, privateKeyPEM: pem.privateKey)
        XCTAssertEqual(loaded.fingerprint, identity.fingerprint)
        XCTAssertTrue(identity.fingerprint.hasPrefix("sha-256 "))
        let alice = try TestVoiceClient("alice", world: world) { $0.dtlsIdentity = loaded }
        defer { alice.client.shutdown() }
        XCTAssertEqual(alice.client.dtlsIdentity.fingerprint, identity.fingerprint)
        XCTAssertThrowsError(try DTLSIdentity(certificatePEM: pem.certificate, privateKeyPEM: "junk")) { error in
            XCTAssertEqual((error as? VoiceError)?.code, .mediaClientLocalDescFailed)
        }
    }
}

/// The power of one frequency in a signal (Goertzel's algorithm), for telling tones apart.
private enum Goertzel {
    static func power(of frequency: Double, in samples: [Int16], sampleRate: Double = 48_000) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var (s1, s2) = (0.0, 0.0)
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            (s2, s1) = (s1, s0)
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }
}
