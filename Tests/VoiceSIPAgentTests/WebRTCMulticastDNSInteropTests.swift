import Foundation
import VoiceCore
import VoiceDTLS
import VoiceEmbedded
import VoiceMediaTypes
import VoiceICE
import VoiceMedia
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// Headless Chromium hiding its addresses (a receive-only page: no capture permission, so its
/// host candidates are mDNS `.local` names, RFC 8828) on a veth link between two namespaces.
/// We resolve its name on the link and connect over the host pair: our selected pair has a
/// host remote at Chromium's address (not a peer-reflexive one learned from its checks), and
/// Chromium's own stats say host → host. Chromium records the tone we send.
final class WebRTCMulticastDNSInteropTests: XCTestCase {
    private static let certificate = try! DTLSCertificate.generate(commonName: "alice")
    private let ourSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 4)
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    func testChromiumHidingItsAddressOffersAndWeConnectOverTheHostPair() throws { try connect(chromium: .offerer) }
    func testWeOfferToChromiumHidingItsAddressAndConnectOverTheHostPair() throws { try connect(chromium: .answerer) }

    private func requirements() throws {
        try require([
            NetworkNamespace.requirement(), SIPPeerRequirement.check("chromium", isInstalled: { _ in WebRTCPeer.isInstalled(.chromium) }),
        ])
    }

    /// Our namespace (10.64.0.1) and Chromium's (10.64.0.2, default route through us).
    private func link() throws -> (ours: NetworkNamespace, theirs: NetworkNamespace) {
        let (ours, theirs) = try NetworkNamespace.linkedPair(prefixes: ("wo", "wt"), ends: ("w0", "w1"))
        cleanup.append { ours.delete() }
        cleanup.append { theirs.delete() }
        try ours.batch("link set w0 up", "addr add 10.64.0.1/24 dev w0")
        try theirs.batch("link set w1 up", "addr add 10.64.0.2/24 dev w1", "route add default via 10.64.0.1")
        return (ours, theirs)
    }

    private func connect(chromium role: WebRTCPeer.Role) throws {
        try requirements()
        let (ours, theirs) = try link()
        let peer = try WebRTCPeer.receiveOnlyChromium(role: role, seconds: 3, in: theirs)
        cleanup.append { peer.stop() }
        // Our port and resolver live in our namespace (its thread and sockets made there).
        let (reserved, resolver) = try ours.perform { () throws -> (ReservedMediaPort, MulticastDNSResolver) in
            (try SIPMediaPortReservation.reserve(host: "10.64.0.1"), MulticastDNSResolver())
        }
        cleanup.append {
            reserved.release()
            resolver.shutdown()
        }
        let capabilities = SDPLocalCapabilities(
            address: "10.64.0.1", port: reserved.port, encryption: role == .offerer ? .automatic(suites: SRTPSuite.available) : .dtlsSRTP,
            ice: SIPUserAgent.iceParameters(host: "10.64.0.1", port: reserved.port, mapped: nil, stunServer: nil),
            dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Self.certificate.fingerprint.bytes))
        var negotiation = SDPOfferAnswer(capabilities: capabilities)

        let negotiated: SDPNegotiatedMedia
        let theirSDP: String
        if role == .offerer {
            theirSDP = try XCTUnwrap(peer.localDescription(timeout: 20), "the offer; log:\n\(peer.logTail())")
            let (answer, result) = try negotiation.receiveOffer(try SDPSessionDescription(parsing: theirSDP))
            try peer.setRemoteDescription(answer.text)
            negotiated = result
        } else {
            try peer.setRemoteDescription(try negotiation.makeOffer().text)
            theirSDP = try XCTUnwrap(peer.localDescription(timeout: 20), "the answer; log:\n\(peer.logTail())")
            negotiated = try negotiation.receiveAnswer(try SDPSessionDescription(parsing: theirSDP))
        }
        let candidates = theirSDP.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("a=candidate:") }
        XCTAssertFalse(candidates.isEmpty, theirSDP)
        XCTAssertTrue(candidates.allSatisfy { $0.contains(".local ") }, "Chromium hides every address:\n\(theirSDP)")
        XCTAssertEqual(negotiated.direction, .sendonly, "Chromium only listens")

        let device = BufferAudioDevice(captureSamples: ourSignal, loop: true)
        let media = SIPCallMedia(
            localHost: "10.64.0.1", localPort: reserved.port, reserved: reserved, audioDevice: device, localICE: negotiation.capabilities.ice,
            certificate: Self.certificate, multicastDNS: resolver)
        cleanup.append { media.stop() }
        try media.apply(negotiated)

        let connected = PollingWait.until(timeout: 15) { media.stream?.stats.dtlsState == .connected }
        XCTAssertTrue(connected, "\(media.stream?.stats as Any)\n\(peer.logTail())")
        let stats = try XCTUnwrap(peer.waitForStats(), "Chromium's stats; log:\n\(peer.logTail())")
        let pair = try XCTUnwrap(media.stream?.stats.selectedCandidatePair, "our selected pair")
        print("mDNS with chromium (\(role)): our pair \(pair); Chromium's view: \(stats)")
        XCTAssertEqual(pair.remoteKind, .host, "the name resolved: a host pair, not a peer-reflexive one")
        XCTAssertEqual(pair.remote.ip.description, "10.64.0.2")
        XCTAssertEqual(stats["connectionState"] as? String, "connected", "\(stats)")
        XCTAssertEqual(stats["localCandidateType"] as? String, "host", "\(stats)")
        XCTAssertEqual(stats["remoteCandidateType"] as? String, "host", "\(stats)")
        let received = try BaresipWAVFile.read(peer.recording).channel(0)
        let atThem = SpectralSimilarity(playedInALoop: ourSignal, in: received)
        XCTAssertGreaterThan(atThem.score, 0.75, "Chromium hears us: \(atThem)")
    }
}
