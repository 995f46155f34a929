import Foundation
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

/// Dual-stack ICE on real links: our side, in a namespace with IPv4 and IPv6 on one link, calls
/// a peer in another namespace that has only IPv6, only IPv4, or both with every IPv6 UDP
/// datagram silently dropped (nftables). Our side binds one `::` socket and offers host
/// candidates of both families (RFC 8421 preferences); each call connects over the family the
/// peer has, and audio goes both ways. The peer is aiortc (another ICE stack) or our own.
final class DualStackNamespaceTests: XCTestCase {
    private static let certificate = try! DTLSCertificate.generate(commonName: "dual")
    private let ourSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 4)
    private let theirSignal = TestSignals.multiTone([(660, 6_000), (1_900, 3_000)], seconds: 4)
    private var cleanup: [() -> Void] = []

    /// What the peer's namespace has.
    private enum PeerNetwork {
        case ipv6Only
        case ipv4Only
        case dualStackIPv6BlackHoled
        /// Both families working: IPv6 wins (RFC 8421 prefers it), which shows the black hole
        /// above is what moves the call to IPv4.
        case dualStack
    }

    /// The bound for the black-holed case, from the media's start to DTLS connected over IPv4.
    /// ICE paces checks 50 ms apart and interleaves the families, so the IPv4 pairs are checked
    /// within the first 100–200 ms; nomination follows 200 ms after the first valid pair.
    private static let blackHoleBound = 2.0

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    func testAnIPv6OnlyAiortcPeerConnectsOverIPv6() throws { try call(aiortc: .ipv6Only) }
    func testAnIPv4OnlyAiortcPeerConnectsOverIPv4() throws { try call(aiortc: .ipv4Only) }
    func testADualStackAiortcPeerWithIPv6BlackHoledConnectsOverIPv4() throws { try call(aiortc: .dualStackIPv6BlackHoled) }
    func testAnIPv6OnlyPeerOfOursConnectsOverIPv6() throws { try callOurs(.ipv6Only) }
    func testAnIPv4OnlyPeerOfOursConnectsOverIPv4() throws { try callOurs(.ipv4Only) }
    func testADualStackPeerOfOursWithIPv6BlackHoledConnectsOverIPv4() throws { try callOurs(.dualStackIPv6BlackHoled) }
    func testADualStackPeerOfOursConnectsOverIPv6() throws { try callOurs(.dualStack) }

    // MARK: - The link

    private func requireNamespaces(_ tools: [SIPPeerRequirement]) throws {
        try require([NetworkNamespace.requirement(), SIPPeerRequirement.check("nft")] + tools)
    }

    /// Our namespace (10.65.0.1 and fd00:65::1) and the peer's, as `network` says.
    private func link(_ network: PeerNetwork) throws -> (ours: NetworkNamespace, theirs: NetworkNamespace) {
        let (ours, theirs) = try NetworkNamespace.linkedPair(prefixes: ("do", "dt"), ends: ("d0", "d1"))
        cleanup.append { ours.delete() }
        cleanup.append { theirs.delete() }
        // nodad: an address under duplicate detection is tentative for a second or two, and not used.
        try ours.batch("link set d0 up", "addr add 10.65.0.1/24 dev d0", "addr add fd00:65::1/64 dev d0 nodad")
        switch network {
        case .ipv6Only:
            try theirs.batch("link set d1 up", "addr add fd00:65::2/64 dev d1 nodad")
        case .ipv4Only:
            try theirs.exec("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1")
            try theirs.batch("link set d1 up", "addr add 10.65.0.2/24 dev d1")
        case .dualStack:
            try theirs.batch("link set d1 up", "addr add 10.65.0.2/24 dev d1", "addr add fd00:65::2/64 dev d1 nodad")
        case .dualStackIPv6BlackHoled:
            try theirs.batch("link set d1 up", "addr add 10.65.0.2/24 dev d1", "addr add fd00:65::2/64 dev d1 nodad")
            // Every IPv6 UDP datagram in or out of the peer's namespace vanishes: no ICMP error,
            // neighbour discovery still works, so the path looks alive and is not.
            try theirs.exec("nft", "add", "table", "ip6", "blackhole")
            try theirs.exec("nft", "add chain ip6 blackhole in { type filter hook input priority 0 ; }")
            try theirs.exec("nft", "add chain ip6 blackhole out { type filter hook output priority 0 ; }")
            try theirs.exec("nft", "add rule ip6 blackhole in meta l4proto udp drop")
            try theirs.exec("nft", "add rule ip6 blackhole out meta l4proto udp drop")
        }
        return (ours, theirs)
    }

    /// A side of ours in `namespace`: one `::` media socket there, host candidates on `hosts`
    /// (first the `c=` address), SDP capabilities with ICE and DTLS.
    private func side(in namespace: NetworkNamespace, hosts: [String]) throws -> (ReservedMediaPort, SDPOfferAnswer) {
        let reserved = try namespace.perform { try SIPMediaPortReservation.reserve(host: "::") }
        cleanup.append { reserved.release() }
        let capabilities = SDPLocalCapabilities(
            address: hosts[0], port: reserved.port, encryption: .dtlsSRTP,
            ice: SIPUserAgent.iceParameters(
                host: hosts[0], port: reserved.port, mapped: nil, stunServer: nil, otherHosts: Array(hosts.dropFirst())),
            dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Self.certificate.fingerprint.bytes))
        return (reserved, SDPOfferAnswer(capabilities: capabilities))
    }

    private func media(_ negotiated: SDPNegotiatedMedia, _ reserved: ReservedMediaPort, _ ice: SDPICEParameters?, plays: [Int16])
        throws -> (SIPCallMedia, BufferAudioDevice)
    {
        let device = BufferAudioDevice(captureSamples: plays, loop: true)
        let media = SIPCallMedia(
            localHost: "::", localPort: reserved.port, reserved: reserved, audioDevice: device, localICE: ice, certificate: Self.certificate)
        cleanup.append { media.stop() }
        try media.apply(negotiated)
        return (media, device)
    }

    /// Waits for DTLS over the selected pair; returns the seconds it took and the pair.
    private func connected(_ media: SIPCallMedia, since start: ContinuousClock.Instant, log: @autoclosure () -> String) throws -> (
        Double, ICESelectedPair
    ) {
        let up = PollingWait.until(timeout: 10) { media.stream?.stats.dtlsState == .connected }
        let took = ContinuousClock.now - start
        XCTAssertTrue(up, "\(media.stream?.stats as Any)\n\(log())")
        let pair = try XCTUnwrap(media.stream?.stats.selectedCandidatePair, "no pair; \(log())")
        return (Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18, pair)
    }

    private func checkFamily(_ pair: ICESelectedPair, _ network: PeerNetwork, took: Double, file: StaticString = #filePath, line: UInt = #line) {
        let wantIPv6 = network == .ipv6Only || network == .dualStack
        XCTAssertEqual(pair.remote.ip.isIPv6, wantIPv6, "pair \(pair)", file: file, line: line)
        XCTAssertEqual(pair.local.ip.isIPv6, wantIPv6, "pair \(pair)", file: file, line: line)
        if network == .dualStackIPv6BlackHoled {
            XCTAssertLessThan(took, Self.blackHoleBound, "connected over IPv4 in \(took) s", file: file, line: line)
        }
    }

    private func ourHosts() -> [String] { ["10.65.0.1", "fd00:65::1"] }

    private func theirHosts(_ network: PeerNetwork) -> [String] {
        switch network {
        case .ipv6Only: ["fd00:65::2"]
        case .ipv4Only: ["10.65.0.2"]
        case .dualStackIPv6BlackHoled, .dualStack: ["10.65.0.2", "fd00:65::2"]
        }
    }

    // MARK: - The calls

    /// We offer; aiortc answers from the peer's namespace.
    private func call(aiortc network: PeerNetwork) throws {
        try requireNamespaces([SIPPeerRequirement.check("aiortc", isInstalled: { _ in WebRTCPeer.isInstalled(.aiortc) })])
        let (ours, theirs) = try link(network)
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "dual-play")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        try BaresipWAVFile.write(theirSignal, to: directory + "/theirs.wav")
        let peer = try WebRTCPeer(.aiortc, role: .answerer, play: directory + "/theirs.wav", seconds: 3, in: theirs)
        cleanup.append { peer.stop() }
        var (reserved, negotiation) = try side(in: ours, hosts: ourHosts())
        try peer.setRemoteDescription(try negotiation.makeOffer().text)
        let answer = try XCTUnwrap(peer.localDescription(timeout: 20), "aiortc's answer; log:\n\(peer.logTail())")
        let start = ContinuousClock.now
        let negotiated = try negotiation.receiveAnswer(try SDPSessionDescription(parsing: answer))
        let (media, device) = try media(negotiated, reserved, negotiation.capabilities.ice, plays: ourSignal)
        let (took, pair) = try connected(media, since: start, log: peer.logTail())
        print("dual-stack \(network) with aiortc: \(pair) in \(took) s")
        checkFamily(pair, network, took: took)
        let stats = try XCTUnwrap(peer.waitForStats(), "aiortc's stats; log:\n\(peer.logTail())")
        XCTAssertEqual(stats["connectionState"] as? String, "connected", "\(stats)")
        let atThem = SpectralSimilarity(playedInALoop: ourSignal, in: try BaresipWAVFile.read(peer.recording).channel(0))
        XCTAssertGreaterThan(atThem.score, 0.75, "aiortc hears us: \(atThem)")
        let atUs = SpectralSimilarity(playedInALoop: theirSignal, in: device.recordedSamples)
        XCTAssertGreaterThan(atUs.score, 0.75, "we hear aiortc: \(atUs)")
    }

    /// We offer; our own side answers from the peer's namespace.
    private func callOurs(_ network: PeerNetwork) throws {
        try requireNamespaces([])
        let (ours, theirs) = try link(network)
        var (reserved, offerer) = try side(in: ours, hosts: ourHosts())
        var (theirReserved, answerer) = try side(in: theirs, hosts: theirHosts(network))
        let offer = try offerer.makeOffer()
        let (answer, theirNegotiated) = try answerer.receiveOffer(try SDPSessionDescription(parsing: offer.text))
        let start = ContinuousClock.now
        let negotiated = try offerer.receiveAnswer(try SDPSessionDescription(parsing: answer.text))
        let (media, device) = try media(negotiated, reserved, offerer.capabilities.ice, plays: ourSignal)
        let (theirMedia, theirDevice) = try self.media(theirNegotiated, theirReserved, answerer.capabilities.ice, plays: theirSignal)
        let (took, pair) = try connected(media, since: start, log: "\(theirMedia.stream?.stats as Any)")
        print("dual-stack \(network) with our own side: \(pair) in \(took) s")
        checkFamily(pair, network, took: took)
        PollingWait.sleep(2)  // audio both ways: a window, not synchronisation
        let atThem = SpectralSimilarity(playedInALoop: ourSignal, in: Array(theirDevice.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(atThem.score, 0.75, "the peer hears us: \(atThem)")
        let atUs = SpectralSimilarity(playedInALoop: theirSignal, in: Array(device.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(atUs.score, 0.75, "we hear the peer: \(atUs)")
    }
}
