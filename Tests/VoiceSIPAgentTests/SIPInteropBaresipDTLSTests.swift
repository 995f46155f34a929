import VoiceAddress
import Foundation
import VoiceDTLS
import VoiceICE
import VoiceNetwork
import VoiceMedia
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceTestAudio
import VoiceCore
import VoiceMediaTypes
import VoiceSupport

/// Our user agent and media engine against baresip 1.0.0 with its `ice` and `dtls_srtp` modules
/// (`mediaenc=dtls_srtp;medianat=ice`, rtcp-mux on): ICE connectivity checks both ways, a DTLS
/// handshake checked against each side's SDP fingerprint, Opus over the SRTP keys it gives.
/// And our automatic policy against baresip at its SDES default: the 488 retry.
final class SIPInteropBaresipDTLSTests: XCTestCase {
    private var cleanup: [() -> Void] = []
    private static let certificate = try! DTLSCertificate.generate(commonName: "alice")

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    private let ourSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 4)
    private let theirSignal = TestSignals.speechLike(seconds: 4)

    private func startBaresip(webRTC: Bool) throws -> BaresipPeer {
        try requirePeer("baresip")
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-dtls")
        let audioFile = directory + "/speech.wav"
        try BaresipWAVFile.write(Array([[Int16]](repeating: theirSignal, count: 10).joined()), to: audioFile)
        var configuration = BaresipConfiguration()
        configuration.user = "carol"
        configuration.audioFile = audioFile
        configuration.recordingDirectory = directory
        if webRTC {
            configuration.mediaEncryption = "dtls_srtp"
            configuration.mediaNAT = "ice"
        }
        let baresip = try BaresipPeer(configuration: configuration)
        cleanup.append {
            baresip.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return baresip
    }

    private func ourAgent(_ policy: SDPEncryptionPolicy, relayOnlyThrough turn: TURNServerPeer? = nil) throws -> SIPTestAgent {
        let agent = try SIPTestAgent(user: "alice", encryption: policy) { configuration in
            configuration.media.dtlsFingerprint = SDPFingerprint(hashFunction: "sha-256", digest: Self.certificate.fingerprint.bytes)
            if let turn {
                configuration.turnServers = [
                    TURNServer(
                        address: TransportAddress(ip: IPAddress("127.0.0.1")!, port: UInt16(turn.port)),
                        username: TURNServerPeer.username, password: TURNServerPeer.password)
                ]
                configuration.candidatePolicy = .relay
            }
        }
        cleanup.append { agent.shutdown() }
        return agent
    }

    private func startMedia(_ agent: SIPTestAgent, _ handle: SIPCallHandle, _ negotiated: SDPNegotiatedMedia) throws -> (SIPCallMedia, BufferAudioDevice) {
        let device = BufferAudioDevice(captureSamples: ourSignal, loop: true)
        let reserved = try XCTUnwrap(agent.agent.reservedMedia(of: handle).wait())
        let localICE = try agent.agent.localICE(of: handle).wait()
        let sipAgent = agent.agent
        let relay = try sipAgent.eventLoop.submit { sipAgent.takeMediaRelay(handle) }.wait()
        let media = SIPCallMedia(
            localHost: "127.0.0.1", localPort: reserved.port, reserved: reserved, audioDevice: device, localICE: localICE,
            certificate: Self.certificate, relay: relay)
        cleanup.append { media.stop() }
        try media.apply(negotiated)
        return (media, device)
    }

    private func assertAudioBothWays(
        _ device: BufferAudioDevice, _ baresip: BaresipPeer, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertTrue(baresip.waitForReceivedAudio(.seconds(2), timeout: .seconds(8)), "baresip received audio", file: file, line: line)
        let atUs = SpectralSimilarity(playedInALoop: theirSignal, in: device.recordedSamples)
        XCTAssertGreaterThan(atUs.score, 0.75, "baresip → us: \(atUs)", file: file, line: line)
        let recording = try XCTUnwrap(baresip.recordings.received.last, "baresip's recording", file: file, line: line)
        let received = try BaresipWAVFile.read(recording).channel(0)
        let atThem = SpectralSimilarity(playedInALoop: ourSignal, in: received)
        XCTAssertGreaterThan(atThem.score, 0.75, "us → baresip: \(atThem)", file: file, line: line)
    }

    private func assertKeyedByDTLS(_ media: SIPCallMedia, file: StaticString = #filePath, line: UInt = #line) {
        let stats = media.stream?.stats
        print("with baresip: DTLS \(stats?.dtlsState?.rawValue ?? "-"), SRTP \(stats?.dtlsSRTPSuite?.sdesName ?? "-"), pair \(stats?.selectedCandidatePair?.description ?? "-")")
        XCTAssertEqual(stats?.dtlsState, .connected, "\(stats as Any)", file: file, line: line)
        XCTAssertNotNil(stats?.dtlsSRTPSuite, file: file, line: line)
        XCTAssertNotNil(stats?.selectedCandidatePair, file: file, line: line)
        XCTAssertEqual(stats?.srtpAuthFailures, 0, file: file, line: line)
    }

    /// Starts our media for an established DTLS-SRTP call with baresip: the handshake completes
    /// and audio goes both ways.
    private func assertDTLSCarriesAudio(
        _ alice: SIPTestAgent, _ handle: SIPCallHandle, _ negotiated: SDPNegotiatedMedia, _ baresip: BaresipPeer,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (media, device) = try startMedia(alice, handle, negotiated)
        try baresip.control.waitForEvent(.callEstablished)
        XCTAssertTrue(alice.wait(timeout: 8) { _ in media.stream?.stats.dtlsState == .connected ? true : nil } ?? false,
            "\(media.stream?.stats as Any)\n\(baresip.process.logTail())", file: file, line: line)
        Thread.sleep(forTimeInterval: 2.5)
        assertKeyedByDTLS(media, file: file, line: line)
        try assertAudioBothWays(device, baresip, file: file, line: line)
    }

    func testWeCallBaresipOverICEAndDTLSSRTP() throws {
        let baresip = try startBaresip(webRTC: true)
        let alice = try ourAgent(.dtlsSRTP)
        let outgoing = try alice.agent.call(try SIPURI(parsing: baresip.uri)).wait()
        let negotiated = try XCTUnwrap(alice.waitForEstablished(outgoing), "baresip answered; log:\n\(baresip.process.logTail())")
        let dtls = try XCTUnwrap(negotiated.dtls, "a DTLS-SRTP answer")
        XCTAssertFalse(dtls.remoteFingerprints.isEmpty)
        XCTAssertNotNil(negotiated.ice, "baresip's ICE parameters")
        try assertDTLSCarriesAudio(alice, outgoing, negotiated, baresip)
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
    }

    /// Relay only (coturn on loopback): our offer carries only the relayed candidate, baresip's
    /// ICE checks it through the TURN server, and the call's DTLS and audio go through it.
    func testARelayOnlyCallToBaresipGoesThroughTheTURNServer() throws {
        try requirePeer("turnserver")
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-turn")
        // baresip's ICE offers the machine's own address, not loopback: the relay must reach it.
        let address = try XCTUnwrap(TURNServerPeer.globalIPv4Address(), "an IPv4 address besides loopback, as baresip's ICE needs")
        let turn = try TURNServerPeer(directory: directory, relayHost: address)
        cleanup.append {
            turn.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let baresip = try startBaresip(webRTC: true)
        let alice = try ourAgent(.dtlsSRTP, relayOnlyThrough: turn)
        let outgoing = try alice.agent.call(try SIPURI(parsing: baresip.uri)).wait()
        let offered = try XCTUnwrap(alice.agent.localICE(of: outgoing).wait())
        XCTAssertEqual(offered.candidates.map(\.kind), [.relayed], "only the relayed candidate")
        let negotiated = try XCTUnwrap(alice.waitForEstablished(outgoing), "baresip answered; log:\n\(baresip.process.logTail())")
        let (media, device) = try startMedia(alice, outgoing, negotiated)
        try baresip.control.waitForEvent(.callEstablished)
        XCTAssertTrue(alice.wait(timeout: 8) { _ in media.stream?.stats.dtlsState == .connected ? true : nil } ?? false,
            "\(media.stream?.stats as Any)\n\(baresip.process.logTail())\n\(turn.process.logTail())")
        Thread.sleep(forTimeInterval: 2.5)
        assertKeyedByDTLS(media)
        XCTAssertEqual(media.stream?.stats.selectedCandidatePair?.localKind, .relayed, "\(media.stream?.stats.selectedCandidatePair?.description ?? "-")")
        XCTAssertEqual(turn.allocations, 1)
        try assertAudioBothWays(device, baresip)
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
    }

    func testBaresipCallsUsOverICEAndDTLSSRTP() throws {
        let baresip = try startBaresip(webRTC: true)
        let alice = try ourAgent(.automatic(suites: SRTPSuite.available))
        try baresip.control.dial(alice.uri.description)
        let (incoming, invite) = try XCTUnwrap(alice.waitForIncomingCall(), "baresip's INVITE; log:\n\(baresip.process.logTail())")
        XCTAssertTrue(String(decoding: invite.body, as: UTF8.self).contains("UDP/TLS/RTP/SAVP"), "baresip offers DTLS-SRTP")
        alice.agent.accept(incoming)
        let negotiated = try XCTUnwrap(alice.waitForEstablished(incoming), "baresip ACKed our 200")
        XCTAssertNotNil(negotiated.dtls)
        try assertDTLSCarriesAudio(alice, incoming, negotiated, baresip)
        try baresip.control.hangUp()
        XCTAssertEqual(alice.waitForTermination(incoming), .remoteHangUp)
    }

    func testOurAutomaticOfferFallsBackToSDESForBaresipAtItsDefaults() throws {
        let baresip = try startBaresip(webRTC: false)
        let alice = try ourAgent(.automatic(suites: SRTPSuite.available))
        let outgoing = try alice.agent.call(try SIPURI(parsing: baresip.uri)).wait()
        let negotiated = try XCTUnwrap(alice.waitForEstablished(outgoing), "baresip answered; log:\n\(baresip.process.logTail())")
        XCTAssertNil(negotiated.dtls)
        XCTAssertNotNil(negotiated.localKey, "SDES keys after the retry")
        let (media, device) = try startMedia(alice, outgoing, negotiated)
        try baresip.control.waitForEvent(.callEstablished)
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertNil(media.stream?.stats.dtlsState)
        try assertAudioBothWays(device, baresip)
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
    }
}
