import VoiceAddress
import VoiceEmbedded
import VoiceDTLS
import VoiceICE
import VoiceMediaPath
import VoiceMediaTypes
import VoiceNetwork
import VoiceRTP
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceMedia

/// Two streams with WebRTC's media path (ICE on the stream's port, then DTLS-SRTP keys) on the
/// embedded engine's in-memory network, in virtual time.
final class WebRTCMediaPathTests: XCTestCase {
    private static let certificateA = try! DTLSCertificate.generate(commonName: "a")
    private static let certificateB = try! DTLSCertificate.generate(commonName: "b")
    private let speech = TestSignals.speechLike(seconds: 4)
    private let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000), (3_100, 2_000)], seconds: 4)

    private struct Side {
        let stream: AudioStream
        let device: BufferAudioDevice
        let events: Locked<[AudioStreamEvent]>
        let address: SocketAddress
    }

    private struct Call {
        let engine: MediaEngine
        let network: InMemoryMediaNetwork
        let a: Side
        let b: Side
    }

    /// A (offerer: ICE controlling, DTLS server) and B (answerer: controlled, DTLS client).
    private func makeCall(
        bExpects: [DTLSFingerprint] = [WebRTCMediaPathTests.certificateA.fingerprint],
        bCandidateFor aAddress: ((SocketAddress) -> SocketAddress)? = nil
    ) throws -> Call {
        let network = InMemoryMediaNetwork()
        let engine = MediaEngine.embedded(network: network)
        let transportA = try engine.transports.bind(SocketAddress(host: "10.0.0.1", port: 0))
        let transportB = try engine.transports.bind(SocketAddress(host: "10.0.0.2", port: 0))
        var random = SplitMix64(seed: 7)
        let credentialsA = ICECredentials.random(using: &random)
        let credentialsB = ICECredentials.random(using: &random)
        func host(_ address: SocketAddress) throws -> ICECandidate {
            let ice = try XCTUnwrap(TransportAddress(address))
            return .local(.host, address: ice, base: ice)
        }
        let candidateA = try host(transportA.localAddress)
        let candidateB = try host(transportB.localAddress)
        let advertisedA = try host(aAddress?(transportA.localAddress) ?? transportA.localAddress)
        let pathA = MediaPathSetup(
            localCredentials: credentialsA, localCandidates: [candidateA], isControlling: true,
            remoteICE: .init(credentials: credentialsB, candidates: [candidateB], isLite: false),
            certificate: Self.certificateA, dtlsRole: .server, remoteFingerprints: [Self.certificateB.fingerprint])
        let pathB = MediaPathSetup(
            localCredentials: credentialsB, localCandidates: [candidateB], isControlling: false,
            remoteICE: .init(credentials: credentialsA, candidates: [advertisedA], isLite: false),
            certificate: Self.certificateB, dtlsRole: .client, remoteFingerprints: bExpects)
        func side(_ transport: any MediaTransport, _ path: MediaPathSetup, signal: [Int16], ssrc: UInt32) throws -> Side {
            var configuration = AudioStreamConfiguration(localAddress: transport.localAddress, codec: .opus(OpusSettings()), encryption: .dtlsSRTP)
            (configuration.ssrc, configuration.rtcpRandomSeed) = (ssrc, UInt64(ssrc))
            let stream = try AudioStream(configuration: configuration, engine: engine, transport: transport, path: path)
            let device = BufferAudioDevice(
                captureSamples: signal, loop: true, recordingCapacity: 48_000 * 30,
                pacing: engine.audioClock.map { SoftwareAudioPacing.ticked(by: $0) } ?? .realTime)
            return Side(stream: stream, device: device, events: Locked([]), address: transport.localAddress)
        }
        let a = try side(transportA, pathA, signal: speech, ssrc: 0xA1)
        let b = try side(transportB, pathB, signal: tones, ssrc: 0xB2)
        return Call(engine: engine, network: network, a: a, b: b)
    }

    private func start(_ call: Call) throws {
        for (side, remote) in [(call.a, call.b.address), (call.b, call.a.address)] {
            let events = side.events
            try side.stream.start(remote: remote, audioDevice: side.device) { event in events.withLock { $0.append(event) } }
        }
    }

    func testICEThenDTLSKeysSRTPAndAudioFlowsBothWays() throws {
        let call = try makeCall()
        try start(call)
        call.engine.advance(by: .seconds(6))
        let a = call.a.stream.stats, b = call.b.stream.stats
        for (name, s) in [("A", a), ("B", b)] {
            XCTAssertEqual(s.dtlsState, .connected, name)
            XCTAssertEqual(s.dtlsSRTPSuite, .aeadAES128GCM, name)
            XCTAssertEqual(s.selectedCandidatePair?.localKind, .host, "\(name): \(s.selectedCandidatePair as Any)")
            XCTAssertTrue(s.selectedCandidatePair?.local.description.hasPrefix("10.0.0.") == true, name)
            XCTAssertEqual(s.srtpAuthFailures, 0, name)
            XCTAssertGreaterThan(s.packetsReceived, 200, name)
        }
        XCTAssertTrue(call.a.events.withLock { $0 }.contains { if case .mediaPathConnected = $0 { true } else { false } })
        let atB = call.b.device.recordedSamples, atA = call.a.device.recordedSamples
        let heardAtB = SpectralSimilarity(playedInALoop: speech, in: Array(atB.suffix(48_000 * 3)))
        let heardAtA = SpectralSimilarity(playedInALoop: tones, in: Array(atA.suffix(48_000 * 3)))
        XCTAssertGreaterThan(heardAtB.score, 0.8, "A→B \(heardAtB)")
        XCTAssertGreaterThan(heardAtA.score, 0.8, "B→A \(heardAtA)")
        call.a.stream.stop()
        call.b.stream.stop()
    }

    func testAPeerWithAnotherCertificateGetsNoKeysAndNoAudio() throws {
        let mallory = try DTLSCertificate.generate(commonName: "mallory")
        let call = try makeCall(bExpects: [mallory.fingerprint])
        try start(call)
        call.engine.advance(by: .seconds(3))
        let failures = call.b.events.withLock { $0 }.compactMap { event -> MediaPathFailure? in
            if case .mediaPathFailed(let why) = event { return why }
            return nil
        }
        guard case .dtls(.fingerprintMismatch)? = failures.first else { return XCTFail("B reported \(failures)") }
        XCTAssertEqual(call.b.stream.stats.dtlsState, .failed)
        XCTAssertEqual(call.b.stream.stats.packetsReceived, 0, "nothing is played without keys")
        XCTAssertEqual(call.a.stream.stats.packetsReceived, 0)
        XCTAssertTrue(call.b.device.recordedSamples.allSatisfy { $0 == 0 })
        call.a.stream.stop()
        call.b.stream.stop()
    }

    func testNoWorkingCandidatePairFailsTheMediaPath() throws {
        // B is told A is somewhere nothing answers, and the network drops all A sends: no check
        // in either direction is ever answered.
        let call = try makeCall(bCandidateFor: { _ in try! SocketAddress(host: "10.9.9.9", port: 9) })
        call.network.setConditions { source, _, _ in source.host == "10.0.0.1" ? nil : .zero }
        try start(call)
        call.engine.advance(by: .seconds(40))
        for side in [call.a, call.b] {
            let failed = side.events.withLock { $0 }.contains { $0 == .mediaPathFailed(.iceFailed) }
            XCTAssertTrue(failed, "\(side.events.withLock { $0 })")
            XCTAssertEqual(side.stream.stats.packetsReceived, 0)
        }
        call.a.stream.stop()
        call.b.stream.stop()
    }

    func testBadIntegrityChecksAndOffPathHellosDoNotDisturbTheCall() throws {
        let call = try makeCall()
        let intruder = try call.engine.transports.bind(SocketAddress(host: "10.0.0.66", port: 0))
        try start(call)
        call.engine.advance(by: .seconds(2))
        // A flood of Binding requests with A's username but the wrong password, and ClientHellos
        // from an address that never passed a check.
        var seeded = SplitMix64(seed: 7)
        let credentialsA = ICECredentials.random(using: &seeded)
        let wrong = ICECredentials(usernameFragment: "xxxx", password: "wrongwrongwrongwrongwrong")
        var random = SplitMix64(seed: 9)
        let hellos = try DTLSAssociation(certificate: Self.certificateB, role: .client, remoteFingerprints: [Self.certificateA.fingerprint])
            .start(now: .zero).compactMap { if case .send(let bytes) = $0 { bytes } else { nil } }
        for round in 0..<200 {
            let request = ICEConnectivityCheck.request(
                transactionID: (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) },
                local: wrong, remote: ICECredentials(usernameFragment: credentialsA.usernameFragment, password: wrong.password),
                priority: 1, role: ICERole(isControlling: true, tieBreaker: 1), useCandidate: round % 2 == 0)
            _ = request.withUnsafeBytes { intruder.send($0, to: call.a.address) }
            for hello in hellos { _ = hello.withUnsafeBytes { intruder.send($0, to: call.b.address) } }
            call.engine.advance(by: .milliseconds(10))
        }
        call.engine.advance(by: .seconds(2))
        let a = call.a.stream.stats, b = call.b.stream.stats
        XCTAssertGreaterThan(a.stunIntegrityFailures, 0)
        XCTAssertGreaterThan(b.offPathDTLSDatagrams, 0)
        XCTAssertEqual(a.dtlsState, .connected)
        XCTAssertEqual(b.dtlsState, .connected)
        let heard = SpectralSimilarity(playedInALoop: speech, in: Array(call.b.device.recordedSamples.suffix(48_000 * 3)))
        XCTAssertGreaterThan(heard.score, 0.8, "\(heard)")
        intruder.close()
        call.a.stream.stop()
        call.b.stream.stop()
    }
}

/// Paths that can never connect end at once, with the reason, instead of waiting for timers.
extension WebRTCMediaPathTests {
    private func failures(_ side: Side) -> [MediaPathFailure] {
        side.events.withLock { $0 }.compactMap { event -> MediaPathFailure? in
            if case .mediaPathFailed(let why) = event { return why }
            return nil
        }
    }

    func testAnIPv4OnlySideToldOfIPv6OnlyCandidatesFailsAtItsFirstTick() throws {
        // B's only candidate is IPv4; A's SDP (as B reads it) names only an IPv6 address: no pair forms.
        let call = try makeCall(bCandidateFor: { a in try! SocketAddress(host: "2001:db8::1", port: a.port) })
        try start(call)
        call.engine.advance(by: .milliseconds(5))
        XCTAssertEqual(failures(call.b), [.noCandidatePair(local: 1, remote: 1)])
        XCTAssertEqual(call.b.stream.stats.dtlsState, .new, "nothing was tried")
        // A failure is reported once; the path stays down.
        call.engine.advance(by: .seconds(2))
        XCTAssertEqual(failures(call.b).count, 1)
        call.a.stream.stop()
        call.b.stream.stop()
    }

    func testAnICERestartWhoseCandidatesCannotPairFailsAtOnce() throws {
        let call = try makeCall()
        try start(call)
        call.engine.advance(by: .seconds(2))
        XCTAssertEqual(call.a.stream.stats.dtlsState, .connected)
        XCTAssertEqual(failures(call.a), [])
        var random = SplitMix64(seed: 31)
        let local = try XCTUnwrap(TransportAddress(call.a.address))
        func restart(remote: [ICECandidate]) -> MediaPath.ICERestart {
            MediaPath.ICERestart(
                localCredentials: .random(using: &random), localCandidates: [.local(.host, address: local, base: local)], isControlling: true,
                remote: .init(credentials: .random(using: &random), candidates: remote, isLite: false))
        }
        // The peer restarts with candidates only on IPv6, where A has none.
        let v6 = try XCTUnwrap(TransportAddress(SocketAddress(host: "2001:db8::2", port: 4_000)))
        call.a.stream.restartICE(restart(remote: [.local(.host, address: v6, base: v6)]))
        call.engine.advance(by: .milliseconds(5))
        XCTAssertEqual(failures(call.a), [.noCandidatePair(local: 1, remote: 1)])
        call.a.stream.stop()
        call.b.stream.stop()
    }

    func testAPeerWithNoCandidatesAtAllFailsAtOnceOnEitherPath() throws {
        // An initial offer with no candidates.
        let call = try makeCall()
        var random = SplitMix64(seed: 41)
        let empty = MediaPathSetup(
            localCredentials: .random(using: &random), localCandidates: [], isControlling: true,
            remoteICE: .init(credentials: .random(using: &random), candidates: [], isLite: false),
            certificate: Self.certificateA, dtlsRole: .server, remoteFingerprints: [Self.certificateB.fingerprint])
        let transport = try call.engine.transports.bind(SocketAddress(host: "10.0.0.3", port: 0))
        var configuration = AudioStreamConfiguration(localAddress: transport.localAddress, codec: .opus(OpusSettings()), encryption: .dtlsSRTP)
        configuration.ssrc = 0xC3
        let stream = try AudioStream(configuration: configuration, engine: call.engine, transport: transport, path: empty)
        let events = Locked<[AudioStreamEvent]>([])
        try stream.start(remote: call.b.address, audioDevice: nil) { event in events.withLock { $0.append(event) } }
        call.engine.advance(by: .milliseconds(5))
        XCTAssertEqual(events.withLock { $0 }, [.mediaPathFailed(.noCandidatePair(local: 0, remote: 0))])
        stream.stop()
        call.a.stream.stop()
        call.b.stream.stop()
    }
}
