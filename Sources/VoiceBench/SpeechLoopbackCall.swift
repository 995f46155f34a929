import VoiceRTP
import Foundation
import VoiceMedia
import VoiceMediaTypes
import VoiceTestAudio
import VoiceTestKit

/// The PESQ speech sample through a real-time loopback call at the benchmark's Opus settings:
/// three seconds of speech-like warm-up first (so the receiver's first RTCP report reaches the
/// sender and FEC follows the loss before the sample starts), then the sample, then a second of
/// silence. The output is aligned with the input and the sample cut out of it, ready to score.
struct SpeechLoopbackCall {
    struct Result {
        /// The received sample, as long as the sent one.
        var received: [Int16]
        var alignment: AudioComparison.Alignment
        var senderStats: AudioStreamStats
        var receiverStats: AudioStreamStats
    }

    static let warmup = TestSignals.speechLike(seconds: 3, amplitude: 6_000)

    /// Plays `speech` from A to B through `impairment`; `poll`, if given, is called every 50 ms
    /// while the call plays with the call and the seconds since it started, and the second at
    /// which the speech ends.
    static func run(
        _ speech: [Int16], settings: OpusSettings, impairment: NetworkImpairment, timeStretch: Bool,
        poll: ((LoopbackCall, _ elapsed: Double, _ speechEnd: Double) -> Void)? = nil
    ) throws -> Result {
        let input = warmup + speech + [Int16](repeating: 0, count: 48_000)
        let call = try LoopbackCall(
            codec: .opus(settings), signalA: input, signalB: [Int16](repeating: 0, count: 48_000),
            impairmentAToB: impairment, impairmentBToA: NetworkImpairment.none
        ) { $0.jitterBuffer.timeStretch = timeStretch }
        try call.start()
        let duration = Double(input.count) / 48_000 + 0.5
        if let poll {
            let started = Date()
            let speechEnd = Double(warmup.count + speech.count) / 48_000
            while Date().timeIntervalSince(started) < duration {
                Thread.sleep(forTimeInterval: 0.05)
                poll(call, Date().timeIntervalSince(started), speechEnd)
            }
        } else {
            Thread.sleep(forTimeInterval: duration)
        }
        let senderStats = call.a.stats, receiverStats = call.b.stats
        call.stop()
        let output = call.deviceB.recordedSamples
        let alignment = AudioComparison.align(reference: input, output: output, maxLag: 48_000)
        let start = alignment.lag + warmup.count
        guard start + speech.count <= output.count else { throw BenchError("recording too short") }
        return Result(
            received: Array(output[start..<(start + speech.count)]), alignment: alignment, senderStats: senderStats,
            receiverStats: receiverStats)
    }
}
