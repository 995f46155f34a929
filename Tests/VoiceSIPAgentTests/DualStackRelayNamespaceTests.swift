import Foundation
import VoiceAddress
import VoiceCore
import VoiceDTLS
import VoiceEmbedded
import VoiceICE
import VoiceMedia
import VoiceMediaTypes
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// Relayed candidates of both families (RFC 8656 §7.2): a relay-only side reaches its TURN
/// server (coturn, relaying on an IPv4 and an IPv6 address) over IPv4 and asks for a dual
/// allocation. Its peer, in another namespace, has only IPv6: the only pair that can work is
/// our IPv6 relayed candidate and the peer's host candidate, so the call connects only if the
/// allocation gave an IPv6 relayed address, ICE paired it, and the media went through it.
final class DualStackRelayNamespaceTests: XCTestCase {
    private static let certificate = try! DTLSCertificate.generate(commonName: "dual-relay")
    private let ourSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 4)
    private let theirSignal = TestSignals.multiTone([(660, 6_000), (1_900, 3_000)], seconds: 4)
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    func testARelayOnlySideOnIPv4ReachesAnIPv6OnlyPeerThroughItsIPv6RelayedAddress() throws {
        try require([NetworkNamespace.requirement(), SIPPeerRequirement.check("turnserver")])
        let (ours, theirs) = try NetworkNamespace.linkedPair(prefixes: ("ro", "rt"), ends: ("r0", "r1"))
        cleanup.append { ours.delete() }
        cleanup.append { theirs.delete() }
        try ours.batch("link set r0 up", "addr add 10.67.0.1/24 dev r0", "addr add fd00:67::1/64 dev r0 nodad")
        try theirs.batch("link set r1 up", "addr add fd00:67::2/64 dev r1 nodad")
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "dual-relay")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        let turn = try TURNServerPeer(directory: directory, in: ours, host: "10.67.0.1", relayHosts: ["10.67.0.1", "fd00:67::1"])
        cleanup.append { turn.stop() }

        // Our side: one IPv4 socket (it reaches the server over IPv4 only), relay only.
        let server = TURNServer(
            address: TransportAddress(ip: IPAddress("10.67.0.1")!, port: 3478), username: TURNServerPeer.username,
            password: TURNServerPeer.password)
        let reserved = try ours.perform { try SIPMediaPortReservation.reserve(host: "0.0.0.0", stunServer: nil, turnServers: [server]) }
        cleanup.append { reserved.sockets.release() }
        let relay = try XCTUnwrap(reserved.relay, "no relay: \(reserved.relayFailures)\n\(turn.process.logTail())")
        XCTAssertEqual(relay.relayedAddresses.map(\.ip.isIPv6), [false, true], "a dual allocation: \(relay.relayedAddresses)")
        XCTAssertEqual(relay.relayedAddresses.last?.ip, IPAddress("fd00:67::1"))
        let relayed = relay.relayed.ip.description
        var offerer = SDPOfferAnswer(
            capabilities: SDPLocalCapabilities(
                address: relayed, port: relay.relayed.port, encryption: .dtlsSRTP,
                ice: SIPUserAgent.iceParameters(
                    host: relayed, port: reserved.port, mapped: nil, stunServer: nil, relays: relay.candidates, policy: .relay),
                dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Self.certificate.fingerprint.bytes)))

        // Theirs: IPv6 only, host candidate only.
        let theirReserved = try theirs.perform { try SIPMediaPortReservation.reserve(host: "::") }
        cleanup.append { theirReserved.release() }
        var answerer = SDPOfferAnswer(
            capabilities: SDPLocalCapabilities(
                address: "fd00:67::2", port: theirReserved.port, encryption: .dtlsSRTP,
                ice: SIPUserAgent.iceParameters(host: "fd00:67::2", port: theirReserved.port, mapped: nil, stunServer: nil),
                dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Self.certificate.fingerprint.bytes)))

        let offer = try offerer.makeOffer()
        let relayedLines = offer.text.components(separatedBy: "\r\n").filter { $0.contains("typ relay") }
        XCTAssertEqual(relayedLines.count, 2, "a relayed candidate per family:\n\(offer.text)")
        XCTAssertFalse(offer.text.contains("typ host"), "relay only")
        let (answer, theirNegotiated) = try answerer.receiveOffer(try SDPSessionDescription(parsing: offer.text))
        let negotiated = try offerer.receiveAnswer(try SDPSessionDescription(parsing: answer.text))

        let device = BufferAudioDevice(captureSamples: ourSignal, loop: true)
        let media = SIPCallMedia(
            localHost: "0.0.0.0", localPort: reserved.port, reserved: reserved.sockets, audioDevice: device,
            localICE: offerer.capabilities.ice, certificate: Self.certificate, relay: relay)
        cleanup.append { media.stop() }
        try media.apply(negotiated)
        let theirDevice = BufferAudioDevice(captureSamples: theirSignal, loop: true)
        let theirMedia = SIPCallMedia(
            localHost: "::", localPort: theirReserved.port, reserved: theirReserved, audioDevice: theirDevice,
            localICE: answerer.capabilities.ice, certificate: Self.certificate)
        cleanup.append { theirMedia.stop() }
        try theirMedia.apply(theirNegotiated)

        let up = PollingWait.until(timeout: 10) { media.stream?.stats.dtlsState == .connected }
        XCTAssertTrue(up, "\(media.stream?.stats as Any)\n\(theirMedia.stream?.stats as Any)\n\(turn.process.logTail())")
        let pair = try XCTUnwrap(media.stream?.stats.selectedCandidatePair)
        XCTAssertEqual(pair.localKind, .relayed, "\(pair)")
        XCTAssertEqual(pair.local.ip, IPAddress("fd00:67::1"), "our IPv6 relayed address: \(pair)")
        XCTAssertEqual(pair.remote.ip, IPAddress("fd00:67::2"), "\(pair)")
        PollingWait.sleep(2)  // audio both ways: a window, not synchronisation
        let atThem = SpectralSimilarity(playedInALoop: ourSignal, in: Array(theirDevice.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(atThem.score, 0.75, "the IPv6 peer hears us through the relay: \(atThem)")
        let atUs = SpectralSimilarity(playedInALoop: theirSignal, in: Array(device.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(atUs.score, 0.75, "we hear the IPv6 peer through the relay: \(atUs)")
    }
}
