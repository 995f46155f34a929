import XCTest
@testable import VoiceMedia
import VoiceTestAudio
import VoiceTestKit

/// WebRTC's audio processing through the C shim, on the simulated room with spoken voices
/// (espeak-ng): echo in single talk, a moved echo path, double talk, noise and a quiet talker.
/// Deterministic (no clock, no threads): the processor sees the frames a device would give it.
/// `voice-bench apm` prints the same cases as figures, beside speexdsp's.
final class VoiceProcessorTests: XCTestCase {
    nonisolated(unsafe) private static var voices: [[Int16]]?  // XCTest runs a class's tests one at a time
    nonisolated(unsafe) private static var scorer: PESQScorer?

    /// The scenarios on three spoken voices, prepared once.
    private func scenarios() throws -> (VoiceProcessingScenarios, PESQScorer) {
        if Self.voices == nil {
            let scorer = try requirePESQScorer()
            Self.scorer = scorer
            Self.voices = try scorer.speakers()
        }
        let voices = try XCTUnwrap(Self.voices), scorer = try XCTUnwrap(Self.scorer)
        return (VoiceProcessingScenarios(voices: voices) { WebRTCVoiceProcessor(sampleRate: 48_000) }, scorer)
    }

    private let far = RoomSignals.mix(RoomSignals.speech(TestSignals.speechLike(seconds: 8, seed: 1), atActiveLevel: -26))
    private let aecOnly = AudioProcessingOptions(noiseSuppression: false, autoGainControl: false)

    func testEchoIsCancelledInASimulatedRoomWithinTwoSeconds() throws {
        let (scenarios, _) = try scenarios()
        for delay in [0.03, 0.06, 0.12] {
            let result = try XCTUnwrap(scenarios.singleTalk(room: EchoRoom(delay: delay)))
            XCTAssertGreaterThanOrEqual(result.erle, 25, "ERLE after 2 s with a \(Int(delay * 1000)) ms echo path")
            let reported = try XCTUnwrap(result.reported, "the canceller reports its metrics")
            XCTAssertGreaterThan(reported.echoReturnLossEnhancement, 10)
        }
        // With the canceller off the echo goes through: the measurement can fail.
        let echo = EchoRoom().echo(of: scenarios.far)
        let off = VoiceProcessingScenarios.run(
            try XCTUnwrap(WebRTCVoiceProcessor(sampleRate: 48_000)), options: .init(echoCancellation: false, noiseSuppression: false, autoGainControl: false),
            microphone: RoomSignals.mix(echo), render: scenarios.far, delay: 60)
        XCTAssertLessThan(RoomSignals.echoReturnLossEnhancement(microphone: echo, output: off, from: 96_000), 3)
    }

    func testAMovedEchoPathIsFollowedWithinASecond() throws {
        let (scenarios, _) = try scenarios()
        let result = try XCTUnwrap(scenarios.pathChange(jump: 0.04, at: 5, target: 20))
        let recovery = try XCTUnwrap(result.recovery, "ERLE per 250 ms after the jump: \(result.erleAfter)")
        XCTAssertLessThanOrEqual(recovery, 1, "back above 20 dB within a second of a 40 ms jump")
    }

    func testInDoubleTalkTheNearEndIsBetterWithTheCancellerThanWithout() throws {
        let (scenarios, scorer) = try scenarios()
        let turns = try XCTUnwrap(try scenarios.doubleTalk(scorer: scorer))
        XCTAssertGreaterThan(turns.on, turns.off, "PESQ-WB of the near-end talker, canceller on and off")
    }

    func testNoiseSuppressionImprovesSpeechInWhiteNoise() throws {
        let (scenarios, scorer) = try scenarios()
        let noise = try XCTUnwrap(try scenarios.noise(scorer: scorer))
        let white = try XCTUnwrap(noise["white"])
        XCTAssertGreaterThanOrEqual(white.on - white.off, 0.3, "PESQ-WB at 10 dB SNR: \(white)")
        let babble = try XCTUnwrap(noise["babble"])
        XCTAssertGreaterThan(babble.on, babble.off, "babble: \(babble)")
    }

    func testGainControlBringsAQuietTalkerToSpeechLevelWithoutPumping() throws {
        let (scenarios, _) = try scenarios()
        let gain = try XCTUnwrap(scenarios.gain(level: -35))
        XCTAssertEqual(gain.outputLevel, -20, accuracy: 3, "speech level after the default chain")
        XCTAssertLessThanOrEqual(gain.pauseGain, gain.speechGain, "the noise in pauses is not raised more than the speech: \(gain)")
        let normal = try XCTUnwrap(scenarios.gain(level: -26))
        XCTAssertEqual(normal.outputLevel, -20, accuracy: 3, "a talker at the nominal level")
    }

    func testSpeexCancelsEchoToo() throws {
        // The candidate the benchmark compares: it must work for the comparison to mean anything.
        let echo = EchoRoom().echo(of: far)
        let microphone = RoomSignals.mix(echo, RoomSignals.whiteNoise(count: far.count, level: -70))
        let speex = try XCTUnwrap(SpeexVoiceProcessor(sampleRate: 48_000, tail: 0.3))
        let out = VoiceProcessingScenarios.run(speex, options: aecOnly, microphone: microphone, render: far, delay: 60)
        XCTAssertGreaterThan(RoomSignals.echoReturnLossEnhancement(microphone: echo, output: out, from: 4 * 48_000), 10)
    }

    func testFormatsTheLibraryTakes() {
        XCTAssertNil(WebRTCVoiceProcessor(sampleRate: 44_100), "44.1 kHz is not one of its rates")
        XCTAssertNil(WebRTCVoiceProcessor(sampleRate: 48_000, captureChannels: 3))
        XCTAssertEqual(WebRTCVoiceProcessor(sampleRate: 16_000)?.frameLength, 160)
        XCTAssertEqual(WebRTCVoiceProcessor(sampleRate: 48_000, captureChannels: 2, renderChannels: 2)?.frameLength, 480)
    }

    func testTheRoomsEchoIsTheConvolutionWithItsResponse() {
        let room = EchoRoom(delay: 0.01, reverberationTime: 0.05, seed: 4)
        let response = room.impulseResponse()
        // An impulse gives the response back; a short random signal gives the direct sum.
        var impulse = [Int16](repeating: 0, count: response.count + 100)
        impulse[0] = 10_000
        let echo = room.echo(of: impulse)
        for i in response.indices { XCTAssertEqual(echo[i], 10_000 * response[i], accuracy: 1e-6) }
        var random = SplitMix64(seed: 3)
        let signal = (0..<5_000).map { _ in Int16(truncatingIfNeeded: Int(random.next() % 20_000) - 10_000) }
        let fast = room.echo(of: signal)
        for i in stride(from: 0, to: signal.count, by: 97) {
            var sum = 0.0
            for k in 0...min(i, response.count - 1) { sum += Double(signal[i - k]) * response[k] }
            XCTAssertEqual(fast[i], sum, accuracy: 1e-6 * max(1, abs(sum)) + 1e-6)
        }
    }

    func testTheRoomHasTheRequestedShape() {
        let room = EchoRoom(delay: 0.05, echoGain: 0.5, reverberationTime: 0.3)
        let response = room.impulseResponse()
        XCTAssertEqual(response[2_400], 0.5, "the direct path, 50 ms late")
        XCTAssertTrue(response[0..<2_400].allSatisfy { $0 == 0 })
        func energy(_ range: Range<Int>) -> Double { response[range].reduce(0) { $0 + $1 * $1 } }
        // RT60 0.3 s: the tail loses 20 dB per 100 ms.
        let early = energy(2_401..<(2_401 + 2_400)), later = energy((2_401 + 4_800)..<(2_401 + 7_200))
        XCTAssertEqual(10 * log10(early / later), 20, accuracy: 2)
        XCTAssertEqual(energy(2_401..<response.count), 0.25, accuracy: 0.001, "as much reverberant energy as direct")
    }
}
