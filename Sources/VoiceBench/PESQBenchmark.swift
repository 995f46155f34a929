import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceTestAudio
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
        let loss = NetworkImpairment(lossRate: Double(lossPercent) / 100, seed: UInt64(1_000 + lossPercent))
        let call = try SpeechLoopbackCall.run(speech, settings: settings, impairment: loss, timeStretch: timeStretch)
        let alignment = call.alignment, statsA = call.senderStats, statsB = call.receiverStats
        let score = try score(call.received, name: "deg-\(lossPercent)")
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
