import VoiceRTP
import VoiceSupport
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceTestAudio
import VoiceMediaTypes

/// `pesq_wb_default_*` and `pesq_wb_baresip_*`: PESQ-WB of speech sent at the SDK's default call
/// settings, and by baresip at its own, through the same impairment in the same run, both
/// received by a default SDK stream whose recording device plays out in real time from the
/// jitter buffer. Only the sender differs between the two figures.
///
/// Each call carries three voices one after another; every (voice, loss seed) pair is scored on
/// its own and the figure is the median. The impairment is 20 ms ± 20 ms of delay (uniform, so
/// packets reorder) in both directions, with random or Gilbert–Elliott loss.
struct DefaultQualityBenchmark {
    /// One network condition.
    struct Condition {
        var name: String
        var lossRate: Double
        var meanBurstLength: Double
        /// Our calls' RED for this condition, instead of the benchmark's (`burst5_no_red`).
        var red: REDSendPolicy.Mode? = nil
        /// Its loss seeds are another condition's (the same losses, another setting).
        var seedsOf: String? = nil

        func impairment(seed: UInt64) -> NetworkImpairment {
            NetworkImpairment(
                lossRate: lossRate, meanBurstLength: meanBurstLength, baseDelay: .zero, jitter: .milliseconds(40), seed: seed)
        }
    }

    static let conditions = [
        Condition(name: "loss0", lossRate: 0, meanBurstLength: 1),
        Condition(name: "loss5", lossRate: 0.05, meanBurstLength: 1),
        Condition(name: "loss10", lossRate: 0.10, meanBurstLength: 1),
        Condition(name: "burst5", lossRate: 0.05, meanBurstLength: 3),
        Condition(name: "burst5_no_red", lossRate: 0.05, meanBurstLength: 3, red: .off, seedsOf: "burst5"),
    ]

    let voices: [[Int16]]
    let signal: [Int16]
    let voiceStarts: [Int]
    let seeds: Int
    let settings: OpusSettings
    let conditions: [Condition]
    let tool: String
    let workDirectory: String
    /// Whether the receivers' jitter buffers use time-scale modification (false: frame-level
    /// adaptation only, as before it existed).
    let timeStretch: Bool
    /// RFC 2198 redundancy on our calls: both ends negotiate it, as two SDK clients do, and send
    /// it as the SDK's default policy does (adaptive) unless told otherwise. Baresip's calls
    /// have none.
    let red: REDSendPolicy.Mode
    /// Payload kb/s our receivers got, by condition index (the bitrate cost beside each figure).
    private let receivedKbps = Locked<[Int: [Double]]>([:])

    /// - Parameters:
    ///   - seeds: loss seeds per condition.
    ///   - only: names of the conditions to run; empty runs them all.
    ///   - settings: our Opus settings (the SDK's default unless a preset is being measured).
    init(seeds: Int, only: [String] = [], settings: OpusSettings = .voice, timeStretch: Bool = true, red: REDSendPolicy.Mode = .adaptive) throws {
        self.seeds = max(1, seeds)
        self.red = red
        self.timeStretch = timeStretch
        self.settings = settings
        conditions = only.isEmpty ? Self.conditions : Self.conditions.filter { only.contains($0.name) }
        guard !conditions.isEmpty else { throw BenchError("no condition named \(only); known: \(Self.conditions.map(\.name))") }
        tool = PESQBenchmark.findTool()
        workDirectory = NSTemporaryDirectory() + "voice-bench-quality-\(getpid())"
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        try PESQBenchmark.python([tool, "prepare-set", workDirectory + "/voice"])
        var voices: [[Int16]] = []
        for i in 1...3 {
            let wav = try WAVFile(contentsOfFile: workDirectory + "/voice-\(i).wav")
            guard wav.sampleRate == 48_000, wav.channels == 1 else { throw BenchError("voice \(i) is not 48 kHz mono") }
            voices.append(wav.samples)
        }
        self.voices = voices
        // 0.5 s of silence, then the voices with 1 s between them, then 1.5 s of silence.
        var signal = [Int16](repeating: 0, count: 24_000)
        var starts: [Int] = []
        for voice in voices {
            starts.append(signal.count)
            signal += voice + [Int16](repeating: 0, count: 48_000)
        }
        signal += [Int16](repeating: 0, count: 24_000)
        self.signal = signal
        voiceStarts = starts
        guard PeerTemplates.baresip != nil else {
            throw BenchError("baresip configuration templates not found (VoiceTestKit's PeerTemplates resource)")
        }
        guard SIPPeerProcess.isInstalled("baresip") else { throw BenchError("baresip is not installed; run scripts/install-deps.sh") }
    }

    /// Runs every condition and seed; returns the figures (name, value) in print order.
    func run() throws -> [(String, String)] {
        var pairs: [(condition: Int, baresip: Bool, ref: String, deg: String)] = []
        for (c, condition) in conditions.enumerated() {
            for seed in 0..<seeds {
                let group = condition.seedsOf.flatMap { name in Self.conditions.firstIndex { $0.name == name } }
                    ?? Self.conditions.firstIndex { $0.name == condition.name } ?? c
                let base = UInt64(10_000 * (group + 1) + 100 * seed)
                let outputs = try runBoth(condition: condition, index: c, seed: base, label: "\(condition.name) seed \(seed)")
                for (isBaresip, output) in [(false, outputs.ours), (true, outputs.baresip)] {
                    let segments = try cut(output, label: "\(condition.name) seed \(seed) \(isBaresip ? "baresip" : "ours")")
                    for (v, segment) in segments.enumerated() {
                        let name = "\(condition.name)-\(seed)-\(isBaresip ? "baresip" : "ours")-\(v + 1)"
                        let ref = workDirectory + "/voice-\(v + 1).wav", deg = workDirectory + "/\(name).wav"
                        try WAVFile(sampleRate: 48_000, channels: 1, samples: segment).write(toFile: deg)
                        pairs.append((c, isBaresip, ref, deg))
                    }
                }
            }
        }
        let list = workDirectory + "/pairs.txt"
        try pairs.map { "\($0.ref) \($0.deg)" }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let scores = try PESQBenchmark.python([tool, "score-list", list]).split(separator: "\n").compactMap { Double($0) }
        guard scores.count == pairs.count else { throw BenchError("pesq scored \(scores.count) of \(pairs.count) samples") }

        var figures: [(String, String)] = []
        var ours: [Double] = [], theirs: [Double] = []
        for (c, condition) in conditions.enumerated() {
            let mine = scores.indices.filter { pairs[$0].condition == c && !pairs[$0].baresip }.map { scores[$0] }
            let baresip = scores.indices.filter { pairs[$0].condition == c && pairs[$0].baresip }.map { scores[$0] }
            ours.append(Self.median(mine))
            theirs.append(Self.median(baresip))
            print(
                "quality: \(condition.name): ours median \(Self.format(ours[c])) \(Self.list(mine)); "
                    + "baresip median \(Self.format(theirs[c])) \(Self.list(baresip))")
        }
        for (c, condition) in conditions.enumerated() { figures.append(("pesq_wb_default_\(condition.name)", Self.format(ours[c]))) }
        let kbps = receivedKbps.withLock { $0 }
        for (c, condition) in conditions.enumerated() {
            figures.append(("payload_kbps_default_\(condition.name)", String(format: "%.1f", Self.median(kbps[c] ?? []))))
        }
        for (c, condition) in conditions.enumerated() where condition.red == nil {
            figures.append(("pesq_wb_baresip_\(condition.name)", Self.format(theirs[c])))
        }
        let margin = zip(ours, theirs).enumerated().filter { conditions[$0.offset].red == nil }.map { $0.element.0 - $0.element.1 }.min() ?? 0
        figures.append(("pesq_vs_baresip_min", String(format: "%+.2f", margin)))
        return figures
    }

    /// One call of ours and one of baresip's, at the same time, through the same condition.
    private func runBoth(condition: Condition, index: Int, seed: UInt64, label: String) throws -> (ours: [Int16], baresip: [Int16]) {
        let capacity = signal.count + 48_000 * 5
        let ours = try LoopbackCall(
            codec: .opus(settings), signalA: signal, signalB: [], impairmentAToB: condition.impairment(seed: seed),
            impairmentBToA: condition.impairment(seed: seed + 1)
        ) { [timeStretch, red] in
            $0.jitterBuffer.timeStretch = timeStretch
            $0.redPayloadType = 63
            // Both as our descriptions negotiate between our own clients.
            $0.sendsVoIPMetrics = true
            $0.redSending = condition.red ?? red
        }
        let baresip = try BaresipSenderCall(
            samples: signal, workDirectory: workDirectory, offering: settings,
            toUs: condition.impairment(seed: seed), toBaresip: condition.impairment(seed: seed + 1), recordingCapacity: capacity,
            timeStretch: timeStretch)
        try ours.start()
        Thread.sleep(forTimeInterval: Double(signal.count) / 48_000 + 1)
        let sender = ours.a.stats, receiver = ours.b.stats, fromBaresip = baresip.receiverStats
        ours.stop()
        baresip.stop()
        print(
            "quality: \(label): ours: sender FEC \(sender.fecEnabled ? "on" : "off") hint \(sender.packetLossHint)%, RED depth \(sender.redDepth) "
                + "(\(sender.redPacketsSent) packets, \(sender.redBlocksSent) blocks, \(sender.bytesSent * 8 / 1_000) kbit sent); "
                + "\(Self.describe(receiver)), recovered by RED \(receiver.jitterBuffer.recoveredByRedundancy)")
        print("quality: \(label): baresip: \(Self.describe(fromBaresip))")
        receivedKbps.withLock { $0[index, default: []].append(Self.payloadKbps(receiver)) }
        flushOutput()
        return (ours.deviceB.recordedSamples, baresip.device.recordedSamples)
    }

    /// Finds each voice in `output` and cuts it out: the first with a wide search (the sender may
    /// start before or after the recording), the others near where the first one puts them.
    func cut(_ output: [Int16], label: String) throws -> [[Int16]] {
        var segments: [[Int16]] = []
        var lag: Int?
        for (v, voice) in voices.enumerated() {
            let range = lag.map { ($0 - 14_400)...($0 + 14_400) } ?? (-24_000)...(96_000)
            guard let found = Self.locate(voice, nominalStart: voiceStarts[v], lags: range, in: output) else {
                throw BenchError("\(label): voice \(v + 1) not found in a recording of \(output.count) samples")
            }
            if lag == nil { lag = found - voiceStarts[v] }
            segments.append(Array(output[found..<(found + voice.count)]))
        }
        return segments
    }

    /// The start of `voice` in `output`, searched at `nominalStart + lags`; nil if out of range.
    static func locate(_ voice: [Int16], nominalStart: Int, lags: ClosedRange<Int>, in output: [Int16]) -> Int? {
        let from = max(0, nominalStart + lags.lowerBound)
        let to = min(output.count, nominalStart + lags.upperBound + voice.count)
        guard to - from >= voice.count else { return nil }
        let window = Array(output[from..<to])
        let alignment = AudioComparison.align(reference: voice, output: window, maxLag: window.count - voice.count)
        let start = from + alignment.lag
        return start + voice.count <= output.count ? start : nil
    }

    /// The receiving side's figures: what arrived, at what rate, and how playout coped.
    static func describe(_ s: AudioStreamStats) -> String {
        let jb = s.jitterBuffer
        let kbps = payloadKbps(s)
        return String(
            format: "received %d packets with %.1f kb/s of payload, lost %d, recovered %d, concealed %d, late %d, delay %.0f ms",
            Int(s.packetsReceived), kbps, Int(s.packetsLost), jb.recoveredFrames, jb.concealedFrames, jb.late,
            jb.currentDelay.milliseconds)
    }

    /// Payload kb/s over the packets received (20 ms each).
    static func payloadKbps(_ s: AudioStreamStats) -> Double {
        s.packetsReceived > 0 ? Double(s.bytesReceived) * 8 / (Double(s.packetsReceived) * 0.02) / 1000 : 0
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
    static func list(_ values: [Double]) -> String { "[" + values.map(format).joined(separator: " ") + "]" }
}
