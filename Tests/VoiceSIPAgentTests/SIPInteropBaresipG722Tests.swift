import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceCore
import VoiceMediaTypes
import VoiceTestAudio
import VoiceSupport

/// G.722 against baresip 1.0.0's `g722` module (spandsp, like ours), configured as a desk phone
/// that has G.722 and no Opus: calls both ways over SDES-SRTP, speech scored with PESQ-WB
/// (P.862.2) in both directions against what the codec alone scores. baresip sends a spoken file and records what it decodes; we
/// send the same speech and record what we play.
final class SIPInteropBaresipG722Tests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    private func requirements() throws -> (PESQScorer, [Int16]) {
        try requirePeer("baresip")
        switch SIPPeerRequirement.check("pesq", isInstalled: { _ in PESQScorer.isInstalled }) {
        case .available: break
        case .skip(let message): throw XCTSkip(message)
        case .fail(let message):
            XCTFail(message)
            throw XCTSkip(message)
        }
        let scorer = try PESQScorer()
        return (scorer, try scorer.shortSpeech())
    }

    /// baresip offering and accepting only G.722, sending `speech` (as the 16 kHz mono file its
    /// G.722 codec needs) in a loop and recording what it receives.
    /// (baresip ends a call when its file runs out: 20 periods outlast any of these calls.)
    private func startBaresip(speech: [Int16]) throws -> BaresipPeer {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-g722")
        let audioFile = directory + "/speech.wav"
        try BaresipWAVFile.write(
            Array([[Int16]](repeating: speech, count: 20).joined()), to: audioFile, channels: 1, sampleRate: 16_000)
        var configuration = BaresipConfiguration()
        configuration.user = "desk"
        // baresip names its codecs by sample rate (16 kHz), not by RTP clock: its SDP says G722/8000.
        configuration.audioCodecs = ["G722/16000/1"]
        configuration.audioFile = audioFile
        configuration.recordingDirectory = directory
        let baresip = try BaresipPeer(configuration: configuration)
        cleanup.append {
            baresip.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return baresip
    }

    private func ourAgent() throws -> SIPTestAgent {
        let agent = try SIPTestAgent(user: "alice")
        cleanup.append { agent.shutdown() }
        return agent
    }

    private func startMedia(
        _ agent: SIPTestAgent, _ handle: SIPCallHandle, _ negotiated: SDPNegotiatedMedia, speech: [Int16]
    ) throws -> BufferAudioDevice {
        let device = BufferAudioDevice(captureSamples: speech, loop: true)
        let reserved = try XCTUnwrap(agent.agent.reservedMedia(of: handle).wait())
        let media = SIPCallMedia(localHost: "127.0.0.1", localPort: reserved.port, reserved: reserved, audioDevice: device) { _ in }
        cleanup.append { media.stop() }
        try media.apply(negotiated)
        return device
    }

    /// PESQ-WB of `speech` through our G.722 encoder and decoder alone, with no network: what
    /// the codec itself allows on this speech (3.06 here; an independent G.722, PyPI's `G722`
    /// over libg722, gave 3.00 on the same sentences, and three espeak-ng voices give 3.1-3.2).
    /// The 3.5 is above what G.722 at 64 kbit/s scores on these voices, so a call is
    /// held to this ceiling instead.
    private func codecAlone(_ codec: MediaCodec, _ scorer: PESQScorer, _ speech: [Int16]) throws -> Double {
        let encoder = try codec.makeEncoder(ptime: 20)
        let decoder = try codec.makeDecoder()
        let input = speech + speech + speech
        var output: [Int16] = []
        var payload = [UInt8](repeating: 0, count: encoder.maxPayloadSize)
        var pcm = [Int16](repeating: 0, count: encoder.samplesPerFrame)
        for start in stride(from: 0, to: input.count - encoder.samplesPerFrame, by: encoder.samplesPerFrame) {
            let frame = Array(input[start..<(start + encoder.samplesPerFrame)])
            let n = try frame.withUnsafeBufferPointer { p in try payload.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
            let m = try payload.withUnsafeBytes { p in
                try pcm.withUnsafeMutableBufferPointer { try decoder.decode(UnsafeRawBufferPointer(rebasing: p[0..<n]), into: $0) }
            }
            output += pcm[0..<m]
        }
        return try scorer.score(loopOf: speech, in: output, name: "codec-alone").score
    }

    /// Lets the call run for 3.5 periods of the speech, then scores one period each way in each
    /// of two successive windows and keeps the better, against the codec alone: within 0.15 of
    /// it (a clean link adds nothing audible) and 0.2 above G.711 alone (2.72 on this speech):
    /// the call is wideband. Two windows because both ends run in real time: on a loaded
    /// machine one playout adjustment (a time-scaled frame, a device period late) in a window
    /// costs that window 0.2-0.3 (CI saw 2.81 once where 3.02 is usual); the codec's quality
    /// shows in a clean one, and a broken path fails both.
    private func scoreBothWays(
        _ scorer: PESQScorer, speech: [Int16], device: BufferAudioDevice, baresip: BaresipPeer, _ name: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let period = Double(speech.count) / 48_000
        XCTAssertTrue(
            baresip.waitForReceivedAudio(.milliseconds(Int64(period * 3_500)), timeout: .seconds(Int64(period * 5)), bytesPerSecond: 32_000),
            "baresip received 3.5 periods of 16 kHz mono", file: file, line: line)
        XCTAssertTrue(
            PollingWait.until(timeout: period * 2) { device.recordedSamples.count > Int(period * 3.5 * 48_000) },
            "we played 3.5 periods", file: file, line: line)
        let recording = try XCTUnwrap(baresip.recordings.received.last, "baresip's recording", file: file, line: line)
        let wav = try BaresipWAVFile.read(recording)
        XCTAssertEqual(wav.sampleRate, 16_000, "baresip decoded G.722 at 16 kHz", file: file, line: line)
        let atBaresip = try BaresipWAVFile.resample(wav.channel(0), from: wav.sampleRate, to: 48_000)
        func better(_ whole: [Int16], _ direction: String) throws -> (score: Double, alignment: AudioComparison.Alignment) {
            let latest = try scorer.score(loopOf: speech, in: whole, name: "\(name)-\(direction)")
            let before = try scorer.score(loopOf: speech, in: Array(whole.dropLast(speech.count)), name: "\(name)-\(direction)-before")
            print(String(format: "g722: %@ %@ windows %.2f, %.2f", name, direction, before.score, latest.score))
            return latest.score >= before.score ? latest : before
        }
        let usToThem = try better(atBaresip, "to-baresip")
        let themToUs = try better(device.recordedSamples, "to-us")
        let ceiling = try codecAlone(.g722, scorer, speech)
        let narrowband = try codecAlone(.pcmu, scorer, speech)
        print(
            String(
                format: "g722: %@ pesq_wb us→baresip %.2f, baresip→us %.2f, G.722 alone %.2f, PCMU alone %.2f", name, usToThem.score,
                themToUs.score, ceiling, narrowband))
        for (direction, result) in [("us → baresip", usToThem), ("baresip → us", themToUs)] {
            XCTAssertGreaterThanOrEqual(result.score, ceiling - 0.15, "\(direction) over G.722 (codec alone \(ceiling)): \(result)", file: file, line: line)
            XCTAssertGreaterThan(result.score, narrowband + 0.2, "\(direction): wideband, above G.711 alone (\(narrowband)): \(result)", file: file, line: line)
        }
    }

    func testWeCallADeskPhoneThatOffersOnlyG722() throws {
        let (scorer, speech) = try requirements()
        let baresip = try startBaresip(speech: speech)
        let alice = try ourAgent()
        let outgoing = try alice.agent.call(try SIPURI(parsing: baresip.uri)).wait()
        let negotiated = try XCTUnwrap(alice.waitForEstablished(outgoing), "baresip answered; log:\n\(baresip.process.logTail())")
        XCTAssertEqual(negotiated.codec, .g722)
        XCTAssertEqual(negotiated.payloadType, 9)
        XCTAssertNotNil(negotiated.localKey, "SRTP negotiated")
        let device = try startMedia(alice, outgoing, negotiated, speech: speech)
        try baresip.control.waitForEvent(.callEstablished)
        try scoreBothWays(scorer, speech: speech, device: device, baresip: baresip, "we-call")
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
    }

    /// The other direction of signaling; the audio is checked by its spectrum (the scores above
    /// cover the codec both ways).
    func testADeskPhoneCallsUsWithG722() throws {
        try requirePeer("baresip")
        let speech = TestSignals.speechLike(seconds: 4)
        let baresip = try startBaresip(speech: speech)
        let alice = try ourAgent()
        try baresip.control.dial(alice.uri.description)
        let (incoming, invite) = try XCTUnwrap(alice.waitForIncomingCall(), "baresip's INVITE; log:\n\(baresip.process.logTail())")
        XCTAssertTrue(String(decoding: invite.body, as: UTF8.self).contains("G722/8000"), "baresip offers G.722 at RFC 3551's 8000")
        alice.agent.ring(incoming)
        alice.agent.accept(incoming)
        let negotiated = try XCTUnwrap(alice.waitForEstablished(incoming), "baresip ACKed our 200")
        XCTAssertEqual(negotiated.codec, .g722)
        let device = try startMedia(alice, incoming, negotiated, speech: speech)
        try baresip.control.waitForEvent(.callEstablished)
        XCTAssertTrue(baresip.waitForReceivedAudio(.seconds(3), timeout: .seconds(8), bytesPerSecond: 32_000), "baresip received audio")
        let atUs = SpectralSimilarity(playedInALoop: speech, in: device.recordedSamples)
        XCTAssertGreaterThan(atUs.score, 0.75, "baresip → us: \(atUs)")
        let recording = try XCTUnwrap(baresip.recordings.received.last, "baresip's recording")
        let wav = try BaresipWAVFile.read(recording)
        let atThem = SpectralSimilarity(playedInALoop: speech, in: try BaresipWAVFile.resample(wav.channel(0), from: wav.sampleRate, to: 48_000))
        XCTAssertGreaterThan(atThem.score, 0.75, "us → baresip: \(atThem)")
        try baresip.control.hangUp()
        XCTAssertEqual(alice.waitForTermination(incoming), .remoteHangUp)
    }
}
