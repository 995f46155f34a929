import Foundation
import VoiceAddress
import VoiceCore
import VoiceDTLS
import VoiceEmbedded
import VoiceICE
import VoiceMedia
import VoiceMediaTypes
import VoiceNetwork
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// Headless Chromium in one namespace, our side in another across a veth. Mid-call our host
/// renumbers (10.66.0.1 to 10.66.0.9: the new address, then the old one goes, as DHCP does),
/// and a real network monitor watching our namespace tells the stream, as the client does.
/// We offer, so we control ICE: our check from the new address renominates (USE-CANDIDATE
/// with NOMINATION 2), and with no re-offer Chromium's selected pair moves to the address our
/// checks taught it, and it hears us with no hole. Its own direction follows once it has
/// checked that pair itself, on its schedule for a connected session (2.2 s measured, when the
/// old pair stops receiving): the re-offer that restarts ICE (our calls' re-INVITE, 25 ms
/// later) is what closes that side, and this test page takes none.
final class WebRTCNetworkMoveInteropTests: XCTestCase {
    private static let certificate = try! DTLSCertificate.generate(commonName: "alice")
    private let ourSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 4)
    private let theirSignal = TestSignals.multiTone([(620, 6_000), (1_710, 4_000)], seconds: 4)
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    func testChromiumFollowsOurRenumberingWithoutAReOffer() throws { try move(reoffers: false) }

    /// The same move followed by the re-offer our calls send in their re-INVITE (new ICE
    /// credentials, the new address): Chromium restarts ICE, checks the new pair at once, and
    /// its sending follows within a second, with the DTLS association unchanged.
    func testChromiumFollowsOurRenumberingAndReOffer() throws { try move(reoffers: true) }

    private func move(reoffers: Bool) throws {
        try require([
            NetworkNamespace.requirement(), SIPPeerRequirement.check("chromium", isInstalled: { _ in WebRTCPeer.isInstalled(.chromium) }),
        ])
        let (ours, theirs) = try NetworkNamespace.linkedPair(prefixes: ("mo", "mt"), ends: ("m0", "m1"))
        cleanup.append { ours.delete() }
        cleanup.append { theirs.delete() }
        try ours.batch("link set m0 up", "addr add 10.66.0.1/24 dev m0")
        // The new address is in the old one's subnet: kept when the old (primary) one goes, as
        // systemd's defaults have it, instead of going with it.
        try ours.exec("sysctl", "-q", "-w", "net.ipv4.conf.m0.promote_secondaries=1")
        // Chromium gathers nothing without a default route.
        try theirs.batch("link set m1 up", "addr add 10.66.0.2/24 dev m1", "route add default via 10.66.0.1")

        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "move-play")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        try BaresipWAVFile.write(theirSignal, to: directory + "/theirs.wav")
        let peer = try WebRTCPeer(.chromium, role: .answerer, play: directory + "/theirs.wav", seconds: 6, in: theirs)
        cleanup.append { peer.stop() }

        // One `::` media socket in our namespace, as a call with automatic address selection has.
        let reserved = try ours.perform { try SIPMediaPortReservation.reserve(host: "::") }
        cleanup.append { reserved.release() }
        let capabilities = SDPLocalCapabilities(
            address: "10.66.0.1", port: reserved.port, encryption: .dtlsSRTP,
            ice: SIPUserAgent.iceParameters(host: "10.66.0.1", port: reserved.port, mapped: nil, stunServer: nil),
            dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Self.certificate.fingerprint.bytes))
        var negotiation = SDPOfferAnswer(capabilities: capabilities)
        try peer.setRemoteDescription(try negotiation.makeOffer().text)
        let answer = try XCTUnwrap(peer.localDescription(timeout: 20), "Chromium's answer; log:\n\(peer.logTail())")
        let negotiated = try negotiation.receiveAnswer(try SDPSessionDescription(parsing: answer))
        let device = BufferAudioDevice(captureSamples: ourSignal, loop: true)
        let media = SIPCallMedia(
            localHost: "::", localPort: reserved.port, reserved: reserved, audioDevice: device, localICE: negotiation.capabilities.ice,
            certificate: Self.certificate)
        cleanup.append { media.stop() }
        try media.apply(negotiated)
        XCTAssertTrue(PollingWait.until(timeout: 15) { media.stream?.stats.dtlsState == .connected }, "\(peer.logTail())")
        XCTAssertEqual(media.stream?.stats.selectedCandidatePair?.local.ip.description, "10.66.0.1")

        let monitor = try NetworkMonitor(
            namespacePath: ours.path,
            onAddressesChanged: { candidates in
                media.stream?.localAddressesChanged(candidates.filter { $0.type != .loopback }.map(\.address))
            }
        ) { _ in }
        cleanup.append { monitor.stop() }
        PollingWait.sleep(1.5)  // audio before the move: a window, not synchronisation
        try ours.batch("addr add 10.66.0.9/24 dev m0", "addr del 10.66.0.1/24 dev m0")
        let movedAt = device.recordedSamples.count
        let moved = PollingWait.until(timeout: 3) { media.stream?.stats.selectedCandidatePair?.local.ip.description == "10.66.0.9" }
        XCTAssertTrue(moved, "our pair: \(media.stream?.stats.selectedCandidatePair as Any)")
        if reoffers {
            negotiation.restartICE(with: SIPUserAgent.iceParameters(host: "10.66.0.9", port: reserved.port, mapped: nil, stunServer: nil))
            try peer.setSecondRemoteOffer(try negotiation.makeOffer().text)
            let second = try XCTUnwrap(peer.secondLocalDescription(), "Chromium's second answer; log:\n\(peer.logTail())")
            try media.apply(try negotiation.receiveAnswer(try SDPSessionDescription(parsing: second)))
        }

        let stats = try XCTUnwrap(peer.waitForStats(), "Chromium's stats; log:\n\(peer.logTail())")
        let theirPair = stats["selectedPair"] as? String ?? ""
        if reoffers {
            XCTAssertTrue(theirPair.hasSuffix("host 10.66.0.9:\(reserved.port)"), "the restart's signaled candidate: \(stats)")
        } else {
            // Chromium hides a peer-reflexive candidate's address in its stats: its port says it.
            XCTAssertEqual(stats["remoteCandidateType"] as? String, "prflx", "Chromium moved to the address our checks taught it: \(stats)")
            XCTAssertTrue(theirPair.hasSuffix(":\(reserved.port)"), theirPair)
        }
        XCTAssertEqual(stats["connectionState"] as? String, "connected", "\(stats)")
        let atThem = try BaresipWAVFile.read(peer.recording).channel(0)
        let heardByThem = SpectralSimilarity(playedInALoop: ourSignal, in: Array(atThem.suffix(48_000)))
        XCTAssertGreaterThan(heardByThem.score, 0.75, "Chromium hears us after the move: \(heardByThem)")
        // Chromium's own direction moves once its pair to our new address is writable: it
        // checks that pair on its slow schedule (measured 2.2 s) unless a re-offer restarts ICE.
        let recorded = device.recordedSamples
        let after = reoffers ? 1 : 3
        let later = Array(recorded.dropFirst(movedAt + after * 48_000).prefix(48_000))
        let heardByUs = SpectralSimilarity(playedInALoop: theirSignal, in: later)
        XCTAssertGreaterThan(heardByUs.score, 0.75, "we hear Chromium \(after) s after the move: \(heardByUs)")
        print(
            "move with chromium\(reoffers ? " and a re-offer" : ""): our pair \(media.stream?.stats.selectedCandidatePair as Any); Chromium's \(theirPair); "
                + "longest gap heard: by Chromium \(AudioGap.longest(in: atThem, after: 48_000)) ms, "
                + "by us \(AudioGap.longest(in: Array(recorded.dropFirst(movedAt - 48_000).prefix(5 * 48_000)), after: 0)) ms")
    }
}
