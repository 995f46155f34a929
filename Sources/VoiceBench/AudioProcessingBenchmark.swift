import ArgumentParser
import Foundation
import VoiceMedia
import VoiceMediaTypes
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit

/// `voice-bench apm`: the voice processing figures on the simulated room
/// (``VoiceProcessingScenarios``), for WebRTC's audio processing (what devices use) and for
/// speexdsp (what it was chosen over), plus the cost of a 10 ms frame beside Opus's.
struct AudioProcessingBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apm",
        abstract: "Prints echo cancellation, noise suppression and gain figures on a simulated room, WebRTC's and speexdsp's (needs espeak-ng and python3 pesq).")

    @Flag(help: "Only the WebRTC processor (skip speexdsp's figures).") var webrtcOnly = false
    @Flag(help: "Skip the PESQ figures (double talk, noise).") var skipPesq = false

    func run() throws {
        let scorer = try PESQScorer()
        defer { scorer.cleanUp() }
        let voices = try scorer.speakers()
        var figures: [(String, String)] = []
        var processors: [(String, () -> (any VoiceProcessor)?)] = [("", { WebRTCVoiceProcessor(sampleRate: 48_000) })]
        if !webrtcOnly { processors.append(("_speex", { SpeexVoiceProcessor(sampleRate: 48_000, tail: 0.3) })) }
        for (suffix, make) in processors {
            let scenarios = VoiceProcessingScenarios(voices: voices, makeProcessor: make)
            figures += try Self.figures(scenarios, suffix: suffix, scorer: skipPesq ? nil : scorer)
            figures.append(("apm_us_per_frame\(suffix)", String(format: "%.1f", Self.cost(make, voices[0]))))
        }
        figures.append(("opus_encode_us_per_frame", String(format: "%.1f", try Self.opusCost(voices[0]))))
        printFigures(figures)
    }

    static func figures(_ scenarios: VoiceProcessingScenarios, suffix: String, scorer: PESQScorer?) throws -> [(String, String)] {
        var figures: [(String, String)] = []
        func add(_ name: String, _ value: Double?, _ format: String = "%.1f") {
            figures.append((name + suffix, value.map { String(format: format, $0) } ?? "-"))
        }
        let single = scenarios.singleTalk()
        add("aec_erle_db", single?.erle)
        add("aec_erle_db_reported", single?.reported?.echoReturnLossEnhancement)
        for delay in [0.03, 0.12] {
            add("aec_erle_db_delay\(Int(delay * 1000))ms", scenarios.singleTalk(room: EchoRoom(delay: delay))?.erle)
        }
        let change = scenarios.pathChange()
        add("aec_path_change_recovery_s", change?.recovery, "%.2f")
        add("aec_erle_db_1s_after_path_change", change.map { Array($0.erleAfter.dropFirst(4).prefix(4)) }.map { $0.reduce(0, +) / Double(max(1, $0.count)) })
        if let scorer {
            let double = try scenarios.doubleTalk(scorer: scorer)
            add("pesq_wb_double_talk", double?.on, "%.2f")
            add("pesq_wb_double_talk_aec_off", double?.off, "%.2f")
            let continuous = try scenarios.doubleTalk(scorer: scorer, overlap: .continuous)
            add("pesq_wb_double_talk_continuous", continuous?.on, "%.2f")
            add("pesq_wb_double_talk_continuous_aec_off", continuous?.off, "%.2f")
            let quieter = try scenarios.doubleTalk(scorer: scorer, room: EchoRoom(echoGain: 0.125))
            add("pesq_wb_double_talk_echo_12db_lower", quieter?.on, "%.2f")
            add("pesq_wb_double_talk_echo_12db_lower_aec_off", quieter?.off, "%.2f")
            let noise = try scenarios.noise(scorer: scorer)
            for name in ["white", "babble", "clean"] {
                add("pesq_wb_\(name)_ns_on", noise?[name]?.on, "%.2f")
                add("pesq_wb_\(name)_ns_off", noise?[name]?.off, "%.2f")
            }
        }
        let gain = scenarios.gain()
        add("agc_level_dbfs", gain?.outputLevel)
        add("agc_speech_gain_db", gain?.speechGain)
        add("agc_pause_gain_db", gain?.pauseGain)
        let alone = scenarios.gain(options: AudioProcessingOptions(echoCancellation: false, noiseSuppression: false, highPassFilter: false))
        add("agc_only_level_dbfs", alone?.outputLevel)
        add("agc_only_speech_gain_db", alone?.speechGain)
        add("agc_only_pause_gain_db", alone?.pauseGain)
        add("agc_level_dbfs_talker_at_26", scenarios.gain(level: -26)?.outputLevel)
        return figures
    }

    /// Microseconds of CPU per 10 ms frame with every stage on, over 20 s of double talk.
    static func cost(_ make: () -> (any VoiceProcessor)?, _ voice: [Int16]) -> Double {
        guard let processor = make() else { return .nan }
        _ = processor.setStages(.all)
        let frame = processor.frameLength
        var capture = [Int16](repeating: 0, count: frame)
        let frames = 2_000
        let started = ProcessFigures.threadCPUSeconds()
        voice.withUnsafeBufferPointer { played in
            guard let base = played.baseAddress else { return }
            for n in 0..<frames {
                let offset = (n * frame) % max(1, played.count - frame)
                for i in 0..<frame { capture[i] = played[(offset + i + 2_880) % played.count] / 4 }
                processor.analyzeRender(base + offset)
                capture.withUnsafeMutableBufferPointer { if let frame = $0.baseAddress { processor.processCapture(frame, delayMilliseconds: 60) } }
            }
        }
        return (ProcessFigures.threadCPUSeconds() - started) * 1e6 / Double(frames)
    }

    /// Microseconds of CPU per 20 ms Opus frame at the SDK's default settings.
    static func opusCost(_ voice: [Int16]) throws -> Double {
        let encoder = try MediaCodec.opus(OpusSettings()).makeEncoder(ptime: 20)
        let frame = 960, frames = 1_000
        var packet = [UInt8](repeating: 0, count: 1_500)
        let started = ProcessFigures.threadCPUSeconds()
        try voice.withUnsafeBufferPointer { played in
            for n in 0..<frames {
                let offset = (n * frame) % max(1, played.count - frame)
                _ = try packet.withUnsafeMutableBytes { try encoder.encode(UnsafeBufferPointer(rebasing: played[offset..<(offset + frame)]), into: $0) }
            }
        }
        return (ProcessFigures.threadCPUSeconds() - started) * 1e6 / Double(frames)
    }
}
