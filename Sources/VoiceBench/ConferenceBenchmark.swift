import ArgumentParser
import Foundation
import VoiceConference
import VoiceTestAudio

/// `voice-bench conference`: what mixing a room costs per participant and 10 ms period, on the
/// speech-like test signal (so levels vary as speech does), in three rooms: everybody talking
/// (the worst case), a meeting (3 talkers of 20), and a large room mostly listening (3 of 100).
struct ConferenceBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conference",
        abstract: "Prints the conference mixer's CPU per participant per 10 ms period, and how many participants a room carries in real time.")

    @Flag(help: "Skip the real-time ramp (conference_participants_realtime).") var skipRealtime = false
    @Option(help: "Participants added per step of the real-time ramp.") var step = 10
    @Option(help: "Largest room the real-time ramp tries.") var maxParticipants = 200
    @Option(help: "Seconds each room is watched for late frames.") var seconds = 5.0
    @Option(help: "Ramps to run; the figure is their median.") var ramps = 3

    func run() throws {
        var figures: [(String, String)] = []
        if !skipRealtime {
            let ramp = ConferenceRealtimeBenchmark(step: max(2, step), maximum: maxParticipants, seconds: seconds)
            var results: [(participants: Int, cpu: Double)] = []
            for index in 1...max(1, ramps) {
                let (best, failedAt) = try ramp.run()
                print("conference ramp \(index): \(best?.participants ?? 0) participants\(failedAt == nil ? " (no late frame up to the maximum: a lower bound)" : "")")
                results.append((best?.participants ?? 0, best?.cpuUtilization ?? 0))
            }
            let median = results.sorted { $0.participants < $1.participants }[results.count / 2]
            figures.append(("conference_participants_realtime", "\(median.participants)"))
            figures.append(("conference_cpu_utilization_at_capacity", String(format: "%.2f", median.cpu)))
        }
        let (allTalking, _) = Self.cost(participants: 6, talkers: 6)
        figures.append(("conference_mix_us_per_participant", String(format: "%.2f", allTalking)))
        for (participants, talkers) in [(20, 3), (100, 3)] {
            let (perParticipant, period) = Self.cost(participants: participants, talkers: talkers)
            figures.append(("conference_mix_us_per_participant_\(participants)_\(talkers)_talking", String(format: "%.2f", perParticipant)))
            figures.append(("conference_mix_us_per_period_\(participants)_\(talkers)_talking", String(format: "%.1f", period)))
        }
        printFigures(figures)
    }

    /// CPU microseconds per participant and per period for a room of `participants` of whom
    /// `talkers` speak (each a different stretch of speech-like noise), the rest silent.
    static func cost(participants: Int, talkers: Int) -> (perParticipant: Double, perPeriod: Double) {
        let mixer = ConferenceMixer(capacity: participants)
        for _ in 0..<participants { _ = mixer.join() }
        let speech = TestSignals.speechLike(seconds: 4)
        let length = ConferenceMixer.frameLength
        let periods = 2_000
        var elapsed = 0.0
        speech.withUnsafeBufferPointer { source in
            for period in 0..<periods {
                for slot in 0..<participants {
                    let input = mixer.input(slot)
                    if slot < talkers {
                        let offset = (period * length + slot * 7_919) % (source.count - length)
                        for i in 0..<length { input[i] = source[offset + i] }
                    } else {
                        input.update(repeating: 0)
                    }
                }
                let started = ProcessFigures.threadCPUSeconds()
                mixer.mix()
                elapsed += ProcessFigures.threadCPUSeconds() - started
            }
        }
        let perPeriod = elapsed * 1e6 / Double(periods)
        return (perPeriod / Double(participants), perPeriod)
    }
}
