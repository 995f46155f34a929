import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSignals
import VoiceMediaTypes

/// `pesq_wb_lossN`: PESQ-WB (P.862.2 at 16 kHz) of a spoken sample sent through two streams on
/// loopback in real time, with N % random loss in user space, after aligning the output.
struct PESQBenchmark {
    let settings: OpusSettings
    let speech: [Int16]
    let workDirectory: String
    let tool: String
    /// Whether the receiver's jitter buffer uses time-scale modification.
    let timeStretch: Bool

    init(settings: OpusSettings, timeStretch: Bool = true) throws {
        self.settings = settings
        self.timeStretch = timeStretch
        workDirectory = NSTemporaryDirectory() + "voice-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        tool = PESQBenchmark.findTool()
        let path = workDirectory + "/speech.wav"
        try PESQBenchmark.python([tool, "prepare", path])
        let wav = try WAVFile(contentsOfFile: path)
        guard wav.sampleRate == 48_000, wav.channels == 1 else { throw BenchError("speech sample is not 48 kHz mono") }
        speech = wav.samples
    }

    static func findTool() -> String {
        let candidates = [
            FileManager.default.currentDirectoryPath + "/scripts/pesq_tool.py",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/pesq_tool.py").path,
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }

    @discardableResult
    static func python(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("python3 \(arguments.joined(separator: " ")) failed; run scripts/install-bench-deps.sh")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// PESQ-WB of `degraded` (the speech sample as received) against the speech sample.
    func score(_ degraded: [Int16], name: String) throws -> Double {
        let refPath = workDirectory + "/ref.wav", degPath = workDirectory + "/\(name).wav"
        try WAVFile(sampleRate: 48_000, channels: 1, samples: speech).write(toFile: refPath)
        try WAVFile(sampleRate: 48_000, channels: 1, samples: degraded).write(toFile: degPath)
        let out = try PESQBenchmark.python([tool, "score", refPath, degPath])
        guard let score = Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw BenchError("pesq said: \(out)") }
        return score
    }

    func run(lossPercent: Int) throws -> Double {
        // Three seconds of speech-like warm-up let the receiver's first RTCP report reach the
        // sender, so FEC follows the loss before the measured sample starts.
        let warmup = TestSignals.speechLike(seconds: 3, amplitude: 6_000)
        let tail = [Int16](repeating: 0, count: 48_000)
        let input = warmup + speech + tail
        let loss = NetworkImpairment(lossRate: Double(lossPercent) / 100, seed: UInt64(1_000 + lossPercent))
        let call = try LoopbackCall(
            codec: .opus(settings), signalA: input, signalB: [Int16](repeating: 0, count: 48_000),
            impairmentAToB: loss, impairmentBToA: NetworkImpairment.none
        ) { [timeStretch] in $0.jitterBuffer.timeStretch = timeStretch }
        try call.start()
        Thread.sleep(forTimeInterval: Double(input.count) / 48_000 + 0.5)
        let statsA = call.a.stats, statsB = call.b.stats
        call.stop()
        let output = call.deviceB.recordedSamples
        let alignment = AudioComparison.align(reference: input, output: output, maxLag: 48_000)
        let start = alignment.lag + warmup.count
        guard start + speech.count <= output.count else { throw BenchError("recording too short") }
        let score = try score(Array(output[start..<(start + speech.count)]), name: "deg-\(lossPercent)")
        let jb = statsB.jitterBuffer
        print(
            String(
                format:
                    "pesq: loss %d%%: PESQ-WB %.2f (%@; sender FEC %@ hint %d%%; receiver lost %d, concealed %d, recovered %d, jitter-buffer frames inserted %d removed %d, delay %.0f ms)",
                lossPercent, score, alignment.description, statsA.fecEnabled ? "on" : "off", statsA.packetLossHint,
                statsB.packetsLost, jb.concealedFrames, jb.recoveredFrames, jb.insertedFrames, jb.removedFrames,
                jb.currentDelay.milliseconds))
        flushOutput()
        return score
    }
}
