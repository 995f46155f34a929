import VoiceEmbedded
import Foundation
import VoiceDTLS
import VoiceMedia
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceTestAudio
import VoiceCore
import VoiceMediaTypes
import VoiceSupport
import VoiceRTP

/// Our SDP offer/answer and media path against other WebRTC stacks, either side offering:
/// aiortc (PyPI: ICE by aioice, DTLS-SRTP through pyOpenSSL, Opus) and a real browser, headless
/// Chromium with a fake microphone playing a WAV. The signaling is this test carrying each
/// side's SDP to the other; audio is checked at both ends.
final class WebRTCInteropTests: XCTestCase {
    private static let certificate = try! DTLSCertificate.generate(commonName: "alice")
    private let ourSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 4)
    private let theirSignal = TestSignals.speechLike(seconds: 4)
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    private func require(_ stack: WebRTCPeer.Stack) throws {
        switch SIPPeerRequirement.check(stack.rawValue, isInstalled: { _ in WebRTCPeer.isInstalled(stack) }) {
        case .available: return
        case .skip(let message): throw XCTSkip(message)
        case .fail(let message):
            XCTFail(message)
            throw SIPPeerError(.notInstalled, message)
        }
    }

    /// Our side: a reserved media port, SDP capabilities with ICE and our fingerprint.
    private func ourSide(
        _ policy: SDPEncryptionPolicy, codecs: [MediaCodec]? = nil, requestsRedundancy: Bool = false
    ) throws -> (ReservedMediaPort, SDPOfferAnswer) {
        let reserved = try SIPMediaPortReservation.reserve(host: "127.0.0.1")
        cleanup.append { reserved.release() }
        var capabilities = SDPLocalCapabilities(
            address: "127.0.0.1", port: reserved.port, encryption: policy,
            ice: SIPUserAgent.iceParameters(host: "127.0.0.1", port: reserved.port, mapped: nil, stunServer: nil),
            dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Self.certificate.fingerprint.bytes))
        if let codecs { capabilities.codecs = codecs }
        capabilities.requestsRedundancy = requestsRedundancy
        return (reserved, SDPOfferAnswer(capabilities: capabilities))
    }

    private func start(_ stack: WebRTCPeer.Stack, _ role: WebRTCPeer.Role) throws -> WebRTCPeer {
        try require(stack)
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "webrtc-play")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        let play = directory + "/speech.wav"
        try BaresipWAVFile.write(theirSignal, to: play)
        let peer = try WebRTCPeer(stack, role: role, play: play, seconds: 4)
        cleanup.append { peer.stop() }
        return peer
    }

    private func runMedia(
        _ negotiated: SDPNegotiatedMedia, reserved: ReservedMediaPort, localICE: SDPICEParameters?,
        redSending: REDSendPolicy.Mode = .adaptive
    ) throws -> (SIPCallMedia, BufferAudioDevice) {
        let device = BufferAudioDevice(captureSamples: ourSignal, loop: true)
        let media = SIPCallMedia(
            localHost: "127.0.0.1", localPort: reserved.port, reserved: reserved, audioDevice: device, localICE: localICE,
            certificate: Self.certificate, redSending: redSending)
        cleanup.append { media.stop() }
        try media.apply(negotiated)
        return (media, device)
    }

    @discardableResult
    private func check(
        _ media: SIPCallMedia, _ device: BufferAudioDevice, _ peer: WebRTCPeer, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String: Any] {
        let connected = PollingWait.until(timeout: 10) { media.stream?.stats.dtlsState == .connected }
        XCTAssertTrue(connected, "\(media.stream?.stats as Any)\n\(peer.logTail())", file: file, line: line)
        let stats = try XCTUnwrap(peer.waitForStats(), "the peer's stats; log:\n\(peer.logTail())", file: file, line: line)
        XCTAssertEqual(stats["connectionState"] as? String, "connected", "\(stats)", file: file, line: line)
        XCTAssertEqual(stats["dtlsState"] as? String, "connected", "\(stats)", file: file, line: line)
        let ours = try XCTUnwrap(media.stream?.stats, file: file, line: line)
        print("with \(peer.stack): SRTP \(ours.dtlsSRTPSuite?.sdesName ?? "-"), pair \(ours.selectedCandidatePair?.description ?? "-"); the peer's view: \(stats)")
        XCTAssertEqual(ours.srtpAuthFailures, 0, file: file, line: line)
        let atUs = SpectralSimilarity(playedInALoop: theirSignal, in: device.recordedSamples)
        XCTAssertGreaterThan(atUs.score, 0.75, "peer → us: \(atUs)", file: file, line: line)
        let received = try BaresipWAVFile.read(peer.recording).channel(0)
        let atThem = SpectralSimilarity(playedInALoop: ourSignal, in: received)
        XCTAssertGreaterThan(atThem.score, 0.75, "us → peer: \(atThem)", file: file, line: line)
        return stats
    }

    func testWeOfferAndAiortcAnswers() throws { try weOffer(to: .aiortc) }
    func testAiortcOffersAndWeAnswer() throws { try theyOffer(.aiortc) }
    func testWeOfferAndChromiumAnswers() throws { try weOffer(to: .chromium) }
    func testChromiumOffersAndWeAnswer() throws { try theyOffer(.chromium) }

    /// RED (RFC 2198) both ways with Chromium, through a proxy that loses 10 % of the packets
    /// each way once DTLS is up. Our answer lists RED first, so Chromium sends it; we send it two
    /// frames deep, without Opus FEC, so that only RED can rebuild a lost frame. Shown by both
    /// sides' counters, not by the SDP: our stream took Chromium's RED apart and played lost
    /// frames from it, and Chromium's `getStats` counts our packets lost but almost nothing
    /// concealed (it files RED copies under no counter of their own: its `fecPacketsReceived`
    /// is Opus FEC only).
    func testChromiumAndWeExchangeREDThroughLoss() throws {
        let peer = try start(.chromium, .offerer)
        var noFEC = OpusSettings.voice
        noFEC.fec = false
        var (reserved, negotiation) = try ourSide(.automatic(suites: SRTPSuite.available), codecs: [.opus(noFEC)], requestsRedundancy: true)
        let proxy = try ImpairmentProxy(
            endpointA: SocketAddress(host: "127.0.0.1", port: Int(reserved.port)), endpointB: nil, aToB: .none, bToA: .none)
        cleanup.append { proxy.stop() }
        let offerText = try XCTUnwrap(peer.localDescription(), "the offer; log:\n\(peer.logTail())")
        let (offer, chromium) = try XCTUnwrap(SDPCandidateRewrite.theirCandidate(in: offerText, becomes: proxy.addressForA))
        proxy.connect(endpointB: chromium)
        let (answer, negotiated) = try negotiation.receiveOffer(try SDPSessionDescription(parsing: offer))
        let red = try XCTUnwrap(negotiated.redPayloadType, "Chromium offers red/48000/2")
        XCTAssertEqual(answer.media.first?.formats.first, String(red), "asked for: RED first")
        try peer.setRemoteDescription(SDPCandidateRewrite.ourPort(reserved.port, becomes: UInt16(proxy.addressForB.port), in: answer.text))
        let (media, device) = try runMedia(
            negotiated, reserved: reserved, localICE: negotiation.capabilities.ice, redSending: .always(depth: 2))
        XCTAssertTrue(PollingWait.until(timeout: 10) { media.stream?.stats.dtlsState == .connected }, peer.logTail())
        let loss = { (seed: UInt64) in NetworkImpairment(lossRate: 0.1, seed: seed) }
        proxy.impair(aToB: loss(7), bToA: loss(8))
        let theirs = try check(media, device, peer)
        let ours = try XCTUnwrap(media.stream?.stats)
        print(
            "RED with chromium: proxy \(proxy.counts); we received \(ours.redPacketsReceived) RED packets, lost \(ours.packetsLost), "
                + "played \(ours.jitterBuffer.recoveredByRedundancy) from copies, concealed \(ours.jitterBuffer.concealedFrames); "
                + "sent \(ours.redPacketsSent) with \(ours.redBlocksSent) copies; chromium: \(theirs["inbound"] ?? "-") \(theirs["outbound"] ?? "-")")
        XCTAssertGreaterThan(ours.redPacketsReceived * 10, ours.packetsReceived * 9, "Chromium sent RED, nearly every packet")
        XCTAssertEqual(ours.redBlocksRefused, 0)
        XCTAssertGreaterThan(ours.packetsLost, 10)
        XCTAssertGreaterThan(ours.jitterBuffer.recoveredByRedundancy, Int(ours.packetsLost) / 2, "we played lost frames from Chromium's copies")
        XCTAssertGreaterThan(ours.redBlocksSent, ours.redPacketsSent * 3 / 2, "we sent two copies a packet")
        let inbound = try XCTUnwrap(theirs["inbound"] as? [String: Any], "\(theirs)")
        let lost = try XCTUnwrap(inbound["packetsLost"] as? Int, "\(inbound)")
        let concealed = try XCTUnwrap(inbound["concealedSamples"] as? Int, "\(inbound)")
        XCTAssertGreaterThan(lost, 10, "Chromium lost our packets: \(inbound)")
        XCTAssertLessThan(concealed, lost * 960 / 4, "and played most of them from our copies, without FEC: \(inbound)")
    }

    private func weOffer(to stack: WebRTCPeer.Stack) throws {
        let peer = try start(stack, .answerer)
        var (reserved, negotiation) = try ourSide(.dtlsSRTP)
        let offer = try negotiation.makeOffer()
        try peer.setRemoteDescription(offer.text)
        let answerText = try XCTUnwrap(peer.localDescription(), "the answer; log:\n\(peer.logTail())")
        let negotiated = try negotiation.receiveAnswer(try SDPSessionDescription(parsing: answerText))
        XCTAssertNotNil(negotiated.dtls)
        XCTAssertEqual(negotiated.ice?.isControlling, true, "the offerer controls")
        let (media, device) = try runMedia(negotiated, reserved: reserved, localICE: negotiation.capabilities.ice)
        try check(media, device, peer)
    }

    private func theyOffer(_ stack: WebRTCPeer.Stack) throws {
        let peer = try start(stack, .offerer)
        var (reserved, negotiation) = try ourSide(.automatic(suites: SRTPSuite.available))
        let offerText = try XCTUnwrap(peer.localDescription(), "the offer; log:\n\(peer.logTail())")
        XCTAssertTrue(offerText.contains("UDP/TLS/RTP/SAVPF"))
        let (answer, negotiated) = try negotiation.receiveOffer(try SDPSessionDescription(parsing: offerText))
        XCTAssertEqual(negotiated.dtls?.isClient, true, "we answer actpass with active")
        XCTAssertEqual(negotiated.ice?.isControlling, false)
        try peer.setRemoteDescription(answer.text)
        let (media, device) = try runMedia(negotiated, reserved: reserved, localICE: negotiation.capabilities.ice)
        try check(media, device, peer)
    }
}
