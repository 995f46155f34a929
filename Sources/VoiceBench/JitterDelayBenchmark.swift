import Foundation
import VoiceMedia
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit

/// `jb_added_delay_ms_p50` on a clean link and under 30 ms of uniform jitter, and
/// `pesq_wb_jitter30_loss5`: a real-time loopback call at the SDK's default settings (Opus
/// voice preset, SRTP, the default jitter buffer) carrying speech, with the jitter buffer's
/// applied delay (``JitterBufferStats/playoutDelay``: how long the fastest packets wait before
/// they play) sampled from the stream's published stats every 200 ms.
///
/// Each condition runs twice in the same run: with time-scale modification (the default) and
/// with frame-level adaptation only (how the buffer worked before), so the change is a
/// comparison on the same machine at the same moment.
struct JitterDelayBenchmark {
    struct Condition {
        var name: String
        var impairment: NetworkImpairment
    }

    struct Result {
        var delayP50: Double
        var delayP95: Double
        var pesq: Double
        var stats: AudioStreamStats
        var latencyMs: Double
    }

    static let conditions = [
        Condition(name: "clean", impairment: .none),
        Condition(name: "jitter30", impairment: NetworkImpairment(jitter: .milliseconds(30), seed: 30)),
        Condition(name: "jitter30_loss5", impairment: NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(30), seed: 305)),
    ]

    let pesq: PESQBenchmark
    /// Network seeds per condition; each figure is the median over them.
    let seeds: Int

    init(seeds: Int = 3) throws {
        pesq = try PESQBenchmark(settings: .voice)
        self.seeds = max(1, seeds)
    }

    /// One call through `condition`; the delay is sampled from 1 s in (after start-up buffering)
    /// to the end of the speech.
    func run(_ condition: Condition, timeStretch: Bool) throws -> Result {
        var delays: [Double] = []
        var lastStamp = MediaTime.zero
        let trace = ProcessInfo.processInfo.environment["VOICE_BENCH_TRACE"] == "1"
        let call = try SpeechLoopbackCall.run(
            pesq.speech, settings: .voice, impairment: condition.impairment, timeStretch: timeStretch
        ) { call, elapsed, speechEnd in
            let s = call.b.stats
            guard elapsed >= 1, elapsed <= speechEnd, s.timestamp != lastStamp else { return }
            lastStamp = s.timestamp
            delays.append(s.jitterBuffer.playoutDelay.milliseconds)
            if trace {
                let jb = s.jitterBuffer
                print(
                    String(
                        format: "  %.1f s: delay %.1f ms target %.1f ms jitter %.1f ms buffered %.1f ms, accelerated %d stretched %d",
                        elapsed, jb.playoutDelay.milliseconds, jb.targetDelay.milliseconds, jb.jitter.milliseconds,
                        jb.currentDelay.milliseconds, jb.acceleratedFrames, jb.stretchedFrames))
            }
        }
        let name = "jb-\(condition.name)-\(timeStretch ? "tsm" : "frames")"
        let score = try pesq.score(call.received, name: name)
        delays.sort()
        return Result(
            delayP50: Self.percentile(delays, 0.5), delayP95: Self.percentile(delays, 0.95), pesq: score,
            stats: call.receiverStats, latencyMs: Double(call.alignment.lag) / 48)
    }

    /// Runs every condition both ways; returns the figures (name, value) in print order.
    func figures(only: [String] = []) throws -> [(String, String)] {
        var figures: [(String, String)] = []
        for condition in Self.conditions where only.isEmpty || only.contains(condition.name) {
            var both: [[Result]] = [[], []]
            for seed in 0..<seeds {
                var c = condition
                c.impairment.seed += UInt64(seed) * 7_919
                for (m, timeStretch) in [true, false].enumerated() {
                    let r = try run(c, timeStretch: timeStretch)
                    both[m].append(r)
                    let label = timeStretch ? "time-scaled" : "frame-level"
                    let jb = r.stats.jitterBuffer
                    print(
                        String(
                            format:
                                "jitter buffer: %@ seed %d %@: applied delay p50 %.1f ms p95 %.1f ms (target %.1f ms), output lags input by %.1f ms; accelerated %d stretched %d (%.0f ms out, %.0f ms in), frames inserted %d removed %d, concealed %d, late %d; PESQ-WB %.2f",
                            condition.name, seed, label, r.delayP50, r.delayP95, jb.targetDelay.milliseconds, r.latencyMs,
                            jb.acceleratedFrames, jb.stretchedFrames, Double(r.stats.timeStretchRemovedSamples) / 48,
                            Double(r.stats.timeStretchAddedSamples) / 48, jb.insertedFrames, jb.removedFrames, jb.concealedFrames,
                            jb.late, r.pesq))
                    flushOutput()
                }
            }
            let tsm = Self.median(both[0]), frames = Self.median(both[1])
            figures.append(("jb_added_delay_ms_p50_\(condition.name)", String(format: "%.1f", tsm.delayP50)))
            figures.append(("jb_added_delay_ms_p50_\(condition.name)_frame_level", String(format: "%.1f", frames.delayP50)))
            if condition.name == "jitter30" {
                // Uniform 0…30 ms: the link's p95 jitter is 28.5 ms, so the target is ≤ 54.2 ms.
                let p95 = 0.95 * condition.impairment.jitter.milliseconds
                figures.append(("jb_added_delay_target_ms_jitter30", String(format: "%.1f", 1.2 * p95 + 20)))
            }
            figures.append(("pesq_wb_\(condition.name)", String(format: "%.2f", tsm.pesq)))
            figures.append(("pesq_wb_\(condition.name)_frame_level", String(format: "%.2f", frames.pesq)))
        }
        return figures
    }

    /// Medians of each figure over seeds.
    static func median(_ results: [Result]) -> (delayP50: Double, pesq: Double) {
        (DefaultQualityBenchmark.median(results.map(\.delayP50)), DefaultQualityBenchmark.median(results.map(\.pesq)))
    }

    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - 1)]
    }
}
