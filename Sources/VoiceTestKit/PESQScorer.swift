import Foundation
import VoiceMedia
import VoiceTestAudio

/// PESQ-WB (ITU-T P.862.2) through `scripts/pesq_tool.py` (PyPI `pesq`, numpy, scipy) and spoken
/// samples from espeak-ng: for tests and benchmarks that score speech a call carried.
package struct PESQScorer {
    /// The tool's path.
    package let tool: String
    private let directory: String

    /// Finds the tool (from the working directory, else beside this source file's package).
    package init() throws(SIPPeerError) {
        let candidates = [
            FileManager.default.currentDirectoryPath + "/scripts/pesq_tool.py",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/pesq_tool.py").standardized.path,
        ]
        guard let tool = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw SIPPeerError(.notInstalled, "scripts/pesq_tool.py not found")
        }
        self.tool = tool
        directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "pesq")
    }

    /// Whether python3 can score (imports pesq, numpy and scipy) and espeak-ng can speak.
    package static var isInstalled: Bool {
        SIPPeerProcess.isInstalled("espeak-ng") && (try? run(["-c", "import pesq, numpy, scipy"])) != nil
    }

    /// Two spoken sentences (about 5.5 s), 48 kHz mono.
    package func shortSpeech() throws -> [Int16] {
        let path = directory + "/speech.wav"
        try Self.run([tool, "prepare-short", path])
        return try WAVFile(contentsOfFile: path).samples
    }

    /// PESQ-WB of one period of the looped `speech` in `recording`, cut where the loop restarts
    /// within the last two periods: a receiver's jitter buffer settles in the first seconds of
    /// a call, and what is scored is the call after that.
    package func score(loopOf speech: [Int16], in whole: [Int16], name: String) throws -> (score: Double, alignment: AudioComparison.Alignment) {
        guard whole.count >= 2 * speech.count else {
            throw SIPPeerError(.notReady, "\(name): \(whole.count) samples recorded, two periods need \(2 * speech.count)")
        }
        let recording = Array(whole.suffix(2 * speech.count))
        let alignment = AudioComparison.alignToLoop(speech, output: recording)
        let start = (speech.count - alignment.lag) % speech.count
        let reference = directory + "/ref.wav", degraded = directory + "/\(name).wav"
        try WAVFile(sampleRate: 48_000, channels: 1, samples: speech).write(toFile: reference)
        try WAVFile(sampleRate: 48_000, channels: 1, samples: Array(recording[start..<(start + speech.count)])).write(toFile: degraded)
        let output = try Self.run([tool, "score", reference, degraded])
        guard let score = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SIPPeerError(.notReady, "pesq_tool.py said: \(output)")
        }
        return (score, alignment)
    }

    /// Three voices (two male, one female), each speaking its own Harvard list (9–12 s), 48 kHz mono.
    package func speakers() throws -> [[Int16]] {
        let prefix = directory + "/speaker"
        try Self.run([tool, "prepare-set", prefix])
        return try (1...3).map { try WAVFile(contentsOfFile: "\(prefix)-\($0).wav").samples }
    }

    /// PESQ-WB of `degraded` against `reference`, both 48 kHz and already aligned.
    package func score(reference: [Int16], degraded: [Int16], name: String) throws -> Double {
        let referencePath = directory + "/\(name)-ref.wav", degradedPath = directory + "/\(name)-deg.wav"
        let count = min(reference.count, degraded.count)
        try WAVFile(sampleRate: 48_000, channels: 1, samples: Array(reference.prefix(count))).write(toFile: referencePath)
        try WAVFile(sampleRate: 48_000, channels: 1, samples: Array(degraded.prefix(count))).write(toFile: degradedPath)
        let output = try Self.run([tool, "score", referencePath, degradedPath])
        guard let score = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SIPPeerError(.notReady, "pesq_tool.py said: \(output)")
        }
        return score
    }

    /// Removes the temporary files.
    package func cleanUp() { try? FileManager.default.removeItem(atPath: directory) }

    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SIPPeerError(.launchFailed, "python3 \(arguments.joined(separator: " ")) failed")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
