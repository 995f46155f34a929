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

    func run() throws {
        guard let stack = WebRTCPeer.Stack(rawValue: peer) else { throw ValidationError("--peer \(peer): chromium or aiortc") }
        printFigures(try Self.figures(stack))
    }

    static func figures(_ stack: WebRTCPeer.Stack) throws -> [(String, String)] {
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
        var negotiation = SDPOfferAnswer(
            capabilities: SDPLocalCapabilities(
                address: "127.0.0.1", port: reserved.port, encryption: .dtlsSRTP, ice: ice,
                dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: certificate.fingerprint.bytes)))
        try peer.setRemoteDescription(try negotiation.makeOffer().text)
        guard let answer = peer.localDescription() else { throw BenchError("\(stack.rawValue) gave no answer:\n\(peer.logTail())") }
        let negotiated = try negotiation.receiveAnswer(try SDPSessionDescription(parsing: answer))
        let device = BufferAudioDevice(captureSamples: speech, loop: true)
        let media = SIPCallMedia(
            localHost: "127.0.0.1", localPort: reserved.port, reserved: reserved, audioDevice: device, localICE: ice,
            certificate: certificate)
        defer { media.stop() }
        try media.apply(negotiated)
        guard let theirs = peer.waitForStats(timeout: seconds + 60) else { throw BenchError("\(stack.rawValue) did not finish:\n\(peer.logTail())") }
        let stats = media.stream?.stats
        print("webrtc-pesq: \(stack.rawValue): pair \(stats?.selectedCandidatePair?.description ?? "-"), SRTP \(stats?.dtlsSRTPSuite?.sdesName ?? "-"); its view: \(theirs)")

        let heardByThem = try BaresipWAVFile.read(peer.recording).channel(0)
        let heardByUs = Array(device.recordedSamples.suffix(heardByThem.count))
        let name = stack.rawValue
        return [
            ("pesq_wb_\(name)_to_us", String(format: "%.2f", try score(heardByUs, of: speech, pesq: pesq, name: "\(name)-to-us"))),
            ("pesq_wb_us_to_\(name)", String(format: "%.2f", try score(heardByThem, of: speech, pesq: pesq, name: "us-to-\(name)"))),
        ]
    }

    /// PESQ-WB of one period of the looped `speech` cut from `recording` where the loop restarts.
    private static func score(_ recording: [Int16], of speech: [Int16], pesq: PESQBenchmark, name: String) throws -> Double {
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
