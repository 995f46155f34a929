import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import VoiceCore
import VoiceMedia
import VoiceSIPAgent
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
#if canImport(Glibc)
    import Glibc
#endif

/// A soak (not CI): `concurrent` calls through Kamailio for `minutes`, each lasting a random
/// 20–60 s and replaced when it ends, one client placing and another answering in this process.
/// Every 10 s it prints the process's RSS, open descriptors and threads, the calls, and at the
/// end the RSS slope after warm-up, descriptor and thread growth, failed calls and lost packets.
struct SoakBenchmark {
    var concurrent = 40
    var minutes = 30.0
    var warmUpMinutes = 5.0
    var shortestCall = 20.0
    var longestCall = 60.0

    struct Sample {
        var seconds: Double
        var rssMiB: Double
        var descriptors: Int
        var threads: Int
    }

    func run() throws -> [(String, String)] {
        var limits = SIPUserAgentLimits()
        limits.maximumCalls = max(limits.maximumCalls, concurrent * 2)
        let speech = TestSignals.speechLike(seconds: 10)
        let answerer = RateAnswerer(codecs: AudioCodec.defaultPreference) {
            BufferAudioDevice(captureSamples: speech, loop: true, recording: false)
        }
        let bench = try KamailioCallBench(limits: limits, logLevel: .critical, answerer: answerer)
        defer { bench.stop() }
        let caller = bench.caller

        let churn = SoakChurn(
            caller: caller, concurrent: concurrent, duration: shortestCall...longestCall,
            device: { BufferAudioDevice(captureSamples: speech, loop: true, recording: false) })
        let started = Date()
        churn.start()
        var samples: [Sample] = []
        let end = started.addingTimeInterval(minutes * 60)
        while Date() < end {
            Thread.sleep(forTimeInterval: min(10, max(0, end.timeIntervalSinceNow)))
            let sample = Sample(
                seconds: Date().timeIntervalSince(started), rssMiB: ProcessFigures.residentKiB() / 1024,
                descriptors: Self.openDescriptors(), threads: Self.threads())
            samples.append(sample)
            let tally = churn.tally
            print(
                String(
                    format: "soak: %5.0f s  rss %.1f MiB  fds %d  threads %d  calls live %d, completed %d, failed %d, lost packets %d",
                    sample.seconds, sample.rssMiB, sample.descriptors, sample.threads, tally.live, tally.completed, tally.failed,
                    tally.packetsLost))
            flushOutput()
        }
        churn.stop()
        _ = PollingWait.until(timeout: 70, every: 0.1) { churn.tally.live == 0 }
        let steady = samples.filter { $0.seconds >= warmUpMinutes * 60 }
        let slope = Self.slope(steady.map { ($0.seconds, $0.rssMiB) }) * 600  // MiB per 10 minutes
        let tally = churn.tally
        let figures: [(String, String)] = [
            ("soak_minutes", String(format: "%.0f", minutes)),
            ("soak_calls_completed", "\(tally.completed)"),
            ("soak_calls_failed", "\(tally.failed)"),
            ("soak_rss_slope_mib_per_10min", String(format: "%.2f", slope)),
            ("soak_rss_mib_last", String(format: "%.1f", samples.last?.rssMiB ?? 0)),
            ("soak_fd_growth", "\((steady.last?.descriptors ?? 0) - (steady.first?.descriptors ?? 0))"),
            ("soak_thread_growth", "\((steady.last?.threads ?? 0) - (steady.first?.threads ?? 0))"),
            ("soak_packets_lost", "\(tally.packetsLost)"),
            ("soak_engine_tick_overruns", "\(MediaEngine.shared.stats.overruns)"),
        ]
        return figures
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func threads() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? -1
        }
        return -1
    }

    /// Least-squares slope of y over x.
    static func slope(_ points: [(Double, Double)]) -> Double {
        guard points.count >= 2 else { return 0 }
        let n = Double(points.count)
        let mx = points.map(\.0).reduce(0, +) / n
        let my = points.map(\.1).reduce(0, +) / n
        let sxy = points.map { ($0.0 - mx) * ($0.1 - my) }.reduce(0, +)
        let sxx = points.map { ($0.0 - mx) * ($0.0 - mx) }.reduce(0, +)
        return sxx > 0 ? sxy / sxx : 0
    }
}

/// Keeps `concurrent` calls up, each for a random time in `duration`, replacing each as it ends.
final class SoakChurn: @unchecked Sendable {
    // @unchecked: mutable state behind `state`.
    struct Tally {
        var live = 0
        var completed = 0
        var failed = 0
        var packetsLost: Int64 = 0
    }

    private let caller: VoiceClient
    private let concurrent: Int
    private let duration: ClosedRange<Double>
    private let device: @Sendable () -> any AudioDevice
    private let state = Locked((tally: Tally(), running: false))
    private let queue = DispatchQueue(label: "voice-bench-soak")

    init(caller: VoiceClient, concurrent: Int, duration: ClosedRange<Double>, device: @escaping @Sendable () -> any AudioDevice) {
        self.caller = caller
        self.concurrent = concurrent
        self.duration = duration
        self.device = device
    }

    var tally: Tally { state.withLock { $0.tally } }

    func start() {
        state.withLock { $0.running = true }
        // Spread the first calls over a few seconds rather than all at once.
        for i in 0..<concurrent { queue.asyncAfter(deadline: .now() + Double(i) * 0.1) { self.place() } }
    }

    func stop() { state.withLock { $0.running = false } }

    private func place() {
        guard state.withLock({ s -> Bool in
            guard s.running else { return false }
            s.tally.live += 1
            return true
        }) else { return }
        let delegate = SoakCallDelegate(hold: Double.random(in: duration)) { [self] outcome in
            state.withLock { s in
                s.tally.live -= 1
                switch outcome {
                case .completed(let lost):
                    s.tally.completed += 1
                    s.tally.packetsLost += lost
                case .failed: s.tally.failed += 1
                }
            }
            queue.async { self.place() }
        }
        _ = caller.connect(
            options: ConnectOptions(accessToken: BenchTokens.token("caller")) { builder in
                builder.params = ["To": "service"]
                builder.delegateQueue = delegate.queue
                builder.audioDevice = self.device()
            },
            delegate: delegate)
    }
}

/// One soak call: hangs up after `hold` seconds, reports how it ended and the packets it lost.
final class SoakCallDelegate: CallDelegate, Sendable {
    enum Outcome: Sendable {
        case completed(packetsLost: Int64)
        case failed(VoiceError)
    }

    let queue = DispatchQueue(label: "voice-bench-soak-call")
    private let hold: Double
    private let finished: @Sendable (Outcome) -> Void
    private let lost = Locked<Int64>(0)

    init(hold: Double, finished: @escaping @Sendable (Outcome) -> Void) {
        self.hold = hold
        self.finished = finished
    }

    func callDidConnect(_ call: Call) {
        queue.asyncAfter(deadline: .now() + hold) {
            call.getStats { report in
                self.lost.withLock { $0 = report?.remoteAudioTrack?.packetsLost ?? 0 }
                call.disconnect()
            }
        }
    }

    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { finished(.failed(error)) }

    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {
        if let error { finished(.failed(error)) } else { finished(.completed(packetsLost: lost.withLock { $0 })) }
    }
}
