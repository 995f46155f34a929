import ArgumentParser
import Foundation
import VoiceCore
import VoiceDTLS
import VoiceMedia
import VoiceMediaTypes
import VoiceSIP
import VoiceSIPAgent
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import VoiceEmbedded
import VoiceRTP

/// `pesq_wb_<peer>_to_us` and `pesq_wb_us_to_<peer>`: PESQ-WB (P.862.2) of spoken sentences sent
/// each way between our media (ICE + DTLS-SRTP + Opus, the SDK's default stream) and a real
/// WebRTC stack on loopback: headless Chromium with a fake microphone playing the sample, or
/// aiortc. We offer, the peer answers; each side plays the sample in a loop and records what it
/// hears, and one whole period of each recording, aligned to the loop, is scored.
struct WebRTCPESQ: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webrtc-pesq",
        abstract: "Prints pesq_wb_<peer>_to_us and pesq_wb_us_to_<peer>: speech both ways with Chromium or aiortc (needs python3 pesq, espeak-ng).")

    @Option(help: "The peer: chromium or aiortc.") var peer = "chromium"
    @Flag(help: "Also through 5 % loss in bursts (Gilbert–Elliott, mean 3) and 20 ± 20 ms jitter both ways: _burst5 rows, with and without RED asked of the peer.")
    var burst5 = false
    @Flag(help: "Neither offer nor send RED (to compare the clean figures without it).") var noRed = false

    func run() throws {
        guard let stack = WebRTCPeer.Stack(rawValue: peer) else { throw ValidationError("--peer \(peer): chromium or aiortc") }
        var figures = try Self.figures(stack, redundancy: !noRed)
        if burst5 { figures += try Self.burstFigures(stack) }
        printFigures(figures)
    }

    /// The burst rows: `pesq_wb_<peer>_to_us_burst5` and `pesq_wb_us_to_<peer>_burst5` at the SDK's
    /// defaults (RED taken from the peer but not asked for, ours adaptive), and the same with RED
    /// asked of the peer (`_burst5_red`: our offer lists it first).
    static func burstFigures(_ stack: WebRTCPeer.Stack) throws -> [(String, String)] {
        let burst = { (seed: UInt64) in
            NetworkImpairment(lossRate: 0.05, meanBurstLength: 3, baseDelay: .zero, jitter: .milliseconds(40), seed: seed)
        }
        return try figures(stack, impairment: (burst(31_000), burst(31_001)), suffix: "_burst5")
            + figures(stack, impairment: (burst(31_000), burst(31_001)), requestsRedundancy: true, suffix: "_burst5_red")
    }

    /// - Parameters:
    ///   - impairment: loss and jitter on the media, us → peer and peer → us, through an
    ///     impairment proxy that both sides know only as each other's candidate; it starts once
    ///     DTLS is up, so the handshake itself is not what is measured.
    ///   - requestsRedundancy: our offer lists RED first, which asks the peer to send it.
    static func figures(
        _ stack: WebRTCPeer.Stack, impairment: (toPeer: NetworkImpairment, toUs: NetworkImpairment)? = nil,
        requestsRedundancy: Bool = false, redundancy: Bool = true, suffix: String = ""
    ) throws -> [(String, String)] {
        guard WebRTCPeer.isInstalled(stack) else { throw BenchError("\(stack.rawValue) is not installed: scripts/install-deps.sh") }
        let pesq = try PESQBenchmark(settings: OpusSettings())
        let speech = pesq.speech
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "webrtc-pesq")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let play = directory + "/speech.wav"
        try BaresipWAVFile.write(speech, to: play)
        // Two whole periods and some: one aligned period is cut from each recording.
        let seconds = 2.5 * Double(speech.count) / 48_000 + 1
        let peer = try WebRTCPeer(stack, role: .answerer, play: play, seconds: seconds)
        defer { peer.stop() }

        let certificate = try DTLSCertificate.generate(commonName: "voice-bench")
        let reserved = try SIPMediaPortReservation.reserve(host: "127.0.0.1")
        let ice = SIPUserAgent.iceParameters(host: "127.0.0.1", port: reserved.port, mapped: nil, stunServer: nil)
        var capabilities = SDPLocalCapabilities(
            address: "127.0.0.1", port: reserved.port, encryption: .dtlsSRTP, ice: ice,
            dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: certificate.fingerprint.bytes))
        capabilities.requestsRedundancy = requestsRedundancy
        capabilities.redundancy = redundancy
        var negotiation = SDPOfferAnswer(capabilities: capabilities)
        let proxy = try impairment.map { _ in
            try ImpairmentProxy(
                endpointA: SocketAddress(host: "127.0.0.1", port: Int(reserved.port)), endpointB: nil, aToB: .none, bToA: .none)
        }
        defer { proxy?.stop() }
        var offer = try negotiation.makeOffer().text
        if let proxy { offer = SDPCandidateRewrite.ourPort(reserved.port, becomes: UInt16(proxy.addressForB.port), in: offer) }
        try peer.setRemoteDescription(offer)
        guard var answer = peer.localDescription() else { throw BenchError("\(stack.rawValue) gave no answer:\n\(peer.logTail())") }
        if let proxy {
            guard let (rewritten, theirs) = SDPCandidateRewrite.theirCandidate(in: answer, becomes: proxy.addressForA) else {
                let lines = answer.split(whereSeparator: \.isNewline).map { String($0).escapingControlCharacters }
                throw BenchError("no IPv4 UDP candidate in the answer:\n\(lines.joined(separator: "\n"))")
            }
            proxy.connect(endpointB: theirs)
            answer = rewritten
        }
        let negotiated = try negotiation.receiveAnswer(try SDPSessionDescription(parsing: answer))
        let device = BufferAudioDevice(captureSamples: speech, loop: true)
        let media = SIPCallMedia(
            localHost: "127.0.0.1", localPort: reserved.port, reserved: reserved, audioDevice: device, localICE: ice,
            certificate: certificate)
        defer { media.stop() }
        try media.apply(negotiated)
        if let proxy, let impairment {
            guard PollingWait.until(timeout: 20, { media.stream?.stats.dtlsState == .connected }) else {
                throw BenchError("DTLS did not connect through the proxy:\n\(peer.logTail())")
            }
            proxy.impair(aToB: impairment.toPeer, bToA: impairment.toUs)
        }
        guard let theirs = peer.waitForStats(timeout: seconds + 60) else { throw BenchError("\(stack.rawValue) did not finish:\n\(peer.logTail())") }
        let stats = media.stream?.stats
        print("webrtc-pesq: \(stack.rawValue)\(suffix): pair \(stats?.selectedCandidatePair?.description ?? "-"), SRTP \(stats?.dtlsSRTPSuite?.sdesName ?? "-"); its view: \(theirs)")
        if let proxy, let stats {
            let counts = proxy.counts
            print(
                "webrtc-pesq: \(stack.rawValue)\(suffix): proxy saw \(counts.seen), dropped \(counts.dropped); we sent RED depth \(stats.redDepth) "
                    + "(\(stats.redPacketsSent) packets), received \(stats.redPacketsReceived) RED packets; "
                    + DefaultQualityBenchmark.describe(stats) + ", recovered by RED \(stats.jitterBuffer.recoveredByRedundancy)")
        }

        let heardByThem = try BaresipWAVFile.read(peer.recording).channel(0)
        let heardByUs = Array(device.recordedSamples.suffix(heardByThem.count))
        let name = stack.rawValue
        return [
            ("pesq_wb_\(name)_to_us\(suffix)", String(format: "%.2f", try score(heardByUs, of: speech, pesq: pesq, name: "\(name)-to-us\(suffix)"))),
            ("pesq_wb_us_to_\(name)\(suffix)", String(format: "%.2f", try score(heardByThem, of: speech, pesq: pesq, name: "us-to-\(name)\(suffix)"))),
        ]
    }

    /// PESQ-WB of one period of the looped `speech` cut from `whole` where the loop restarts,
    /// within its last two periods: the receiver's jitter buffer settles in the first seconds
    /// (Chromium's NetEq removed about 50 ms there), and what is scored is the call after that.
    /// (Aligned over the whole recording, the cut often fell on the first period: 3.2–3.6 for
    /// us → Chromium on a clean link, 4.25 for the same recordings past their first 2 s.)
    private static func score(_ whole: [Int16], of speech: [Int16], pesq: PESQBenchmark, name: String) throws -> Double {
        guard whole.count >= 2 * speech.count else {
            throw BenchError("\(name): \(whole.count) samples recorded, two periods need \(2 * speech.count)")
        }
        let recording = Array(whole.suffix(2 * speech.count))
        let alignment = AudioComparison.alignToLoop(speech, output: recording)
        let start = (speech.count - alignment.lag) % speech.count
        guard recording.count >= start + speech.count else {
            throw BenchError("\(name): \(recording.count) samples recorded, one period from \(start) needs \(start + speech.count)")
        }
        let period = Array(recording[start..<(start + speech.count)])
        let score = try pesq.score(period, name: name)
        print("webrtc-pesq: \(name): \(alignment); PESQ-WB \(String(format: "%.2f", score))")
        return score
    }
}
