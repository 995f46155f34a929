import ArgumentParser
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// `voice-bench tsm-offline` (hidden): ``TimeStretch`` alone, without a network or a jitter
/// buffer. The PESQ speech sample is cut into 20 ms frames, every `every`-th frame is
/// accelerated, stretched or (`alternate`) each in turn, and the result is scored against the
/// original, to see what PESQ makes of a given amount of time-scaling.
struct TimeStretchOffline: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tsm-offline", shouldDisplay: false)
    @Option(help: "Change every N-th frame.") var every = 10
    @Option(help: "accelerate, stretch, or alternate between them.") var mode = "alternate"
    @Option(help: "Correlation a voiced frame needs (above 1: only quiet frames change).") var threshold: Float = 0.9
    @Option(help: "RMS under which a frame counts as quiet.") var quiet: Float = 256
    @Flag(help: "Only time the period search (µs per voiced search over the sample's frames).") var cost = false

    func run() throws {
        let pesq = try PESQBenchmark(settings: .voice)
        var stretch = TimeStretch()
        stretch.correlationThreshold = threshold
        stretch.quietLevel = quiet
        if cost { return Self.timeSearch(pesq.speech, stretch: &stretch) }
        var out: [Int16] = []
        var frame = [Int16](repeating: 0, count: 48 * 120)
        var n = 0, changedA = 0, changedS = 0, removed = 0, added = 0
        var i = 0
        while i + 960 <= pesq.speech.count {
            for k in 0..<960 { frame[k] = pesq.speech[i + k] }
            var count = 960
            if n % every == every - 1 {
                count = frame.withUnsafeMutableBufferPointer { b in
                    switch mode {
                    case "accelerate": return stretch.accelerate(b, count: 960)
                    case "stretch": return stretch.stretch(b, count: 960)
                    default: return (n / every) % 2 == 0 ? stretch.accelerate(b, count: 960) : stretch.stretch(b, count: 960)
                    }
                }
                if count < 960 { changedA += 1; removed += 960 - count }
                if count > 960 { changedS += 1; added += count - 960 }
            }
            out += frame[0..<count]
            i += 960
            n += 1
        }
        let padded = Array(out.prefix(pesq.speech.count)) + [Int16](repeating: 0, count: max(0, pesq.speech.count - out.count))
        let score = try pesq.score(padded, name: "tsm-offline")
        let same = try pesq.score(pesq.speech, name: "tsm-same")
        print("frames \(n): accelerated \(changedA) (\(removed / 48) ms), stretched \(changedS) (\(added / 48) ms); PESQ-WB \(score), untouched \(same)")
    }

    /// The period search on every 20 ms frame of `speech`, as an urgent request makes it.
    static func timeSearch(_ speech: [Int16], stretch: inout TimeStretch) {
        let frames = speech.count / 960
        let clock = MonotonicMediaClock()
        var found = 0
        let rounds = 20
        let start = clock.now()
        speech.withUnsafeBufferPointer { s in
            for _ in 0..<rounds {
                for f in 0..<frames {
                    let frame = UnsafeBufferPointer(rebasing: s[(f * 960)..<(f * 960 + 960)])
                    if stretch.period(in: frame, voiced: true) != nil { found += 1 }
                }
            }
        }
        let micros = (clock.now() - start).seconds * 1e6 / Double(rounds * frames)
        print(String(format: "period search: %.2f µs per 20 ms frame (%d frames × %d, %.0f%% with a period)", micros, frames, rounds, Double(found) * 100 / Double(rounds * frames)))
    }
}
