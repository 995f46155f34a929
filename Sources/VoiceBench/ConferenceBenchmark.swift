import ArgumentParser
import Foundation
import VoiceConference
import VoiceTestAudio

/// `voice-bench conference`: the room server's capacity and cost, measured alone, with its
/// participants in another process (``ConferenceRoomServerBenchmark``, ``ConferenceLoad``): the
/// largest room with 3 talkers and no late frame, the CPU per listener and per talker, and what
/// shared encodes save against per-leg ones. Then the older figures: rooms whose participants
/// are full SDK clients in this process, and what mixing costs per participant and 10 ms
/// period on the speech-like test signal.
struct ConferenceBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conference",
        abstract: "Prints the conference mixer's CPU per participant per 10 ms period, and how many participants a room carries in real time.")

    @Flag(help: "Skip the real-time ramp (conference_participants_realtime).") var skipRealtime = false
    @Option(help: "Participants added per step of the real-time ramp.") var step = 10
    @Option(help: "Largest room the real-time ramp tries.") var maxParticipants = 200
    @Option(help: "Seconds each room is watched for late frames.") var seconds = 5.0
    @Option(help: "Ramps to run; the figure is their median.") var ramps = 3
    @Flag(help: "Skip the room server's figures (the out-of-process load).") var skipRoomServer = false
    @Option(help: "Room server ramp: first size.") var roomStart = 50
    @Option(help: "Room server ramp: step, then the fine step from the last good size.") var roomStep = 25
    @Option(help: "Room server ramp: the resolution the last interval is halved to.") var roomFine = 5
    @Option(help: "Room server ramp: largest size tried.") var roomMaximum = 400
    @Option(help: "Room server: seconds each room is watched for late frames.") var roomSeconds = 10.0
    @Option(help: "Room server ramps; the figure is their median.") var roomRamps = 3
    @Option(help: "Only measure one room of this size (for profiling the room process), then exit.") var roomOnly: Int?
    @Flag(help: "With --room-only: SDES-SRTP instead of ICE + DTLS-SRTP.") var roomSdes = false
    @Flag(help: "With --room-only: print the load generator's command instead of running it (for profilers).") var roomExternalLoad = false

    func run() throws {
        var figures: [(String, String)] = []
        if let roomOnly {
            let bench = ConferenceRoomServerBenchmark(seconds: roomSeconds, settle: 3, sdes: roomSdes, externalLoad: roomExternalLoad)
            return bench.report(try bench.measure(participants: roomOnly))
        }
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
        if !skipRoomServer { figures += try roomServerFigures() }
        let (allTalking, _) = Self.cost(participants: 6, talkers: 6)
        figures.append(("conference_mix_us_per_participant", String(format: "%.2f", allTalking)))
        for (participants, talkers) in [(20, 3), (100, 3)] {
            let (perParticipant, period) = Self.cost(participants: participants, talkers: talkers)
            figures.append(("conference_mix_us_per_participant_\(participants)_\(talkers)_talking", String(format: "%.2f", perParticipant)))
            figures.append(("conference_mix_us_per_period_\(participants)_\(talkers)_talking", String(format: "%.1f", period)))
        }
        printFigures(figures)
    }

    /// The room server's figures: its capacity with 3 talkers (ICE + DTLS-SRTP, the median of
    /// `roomRamps` ramps; SDES, one ramp), its CPU per listener and per talker, and shared
    /// against per-leg encodes at 100 participants.
    func roomServerFigures() throws -> [(String, String)] {
        var figures: [(String, String)] = []
        let bench = ConferenceRoomServerBenchmark(seconds: roomSeconds, settle: 3, sdes: false)
        let shared = try bench.measure(participants: 100)
        bench.report(shared)
        let perLeg = try bench.measure(participants: 100, sharesEncoding: false)
        bench.report(perLeg)
        let decodingAll = try bench.measure(participants: 100, skipsAnnouncedSilence: false)
        bench.report(decodingAll)
        let half = try bench.measure(participants: 50)
        bench.report(half)
        let sixTalking = try bench.measure(participants: 100, talkers: 6)
        bench.report(sixTalking)
        let perListener = (shared.cpu - half.cpu) / 50 * 1e6
        let perTalker = perListener + (sixTalking.cpu - shared.cpu) / 3 * 1e6
        figures.append(("conference_encode_sharing_cpu_ratio", String(format: "%.2f", shared.cpu / max(perLeg.cpu, 1e-9))))
        figures.append(("conference_room_cpu_100_3_talking_shared", String(format: "%.3f", shared.cpu)))
        figures.append(("conference_room_cpu_100_3_talking_per_leg", String(format: "%.3f", perLeg.cpu)))
        figures.append(("conference_room_cpu_100_3_talking_decoding_all", String(format: "%.3f", decodingAll.cpu)))
        figures.append(("conference_server_cpu_us_per_listener", String(format: "%.0f", perListener)))
        figures.append(("conference_server_cpu_us_per_talker", String(format: "%.0f", perTalker)))
        var sizes: [Int] = []
        for index in 1...max(1, roomRamps) {
            let size = try bench.ramp(from: roomStart, step: roomStep, fine: roomFine, maximum: roomMaximum)
            print("conference room server ramp \(index): \(size) participants")
            sizes.append(size)
        }
        figures.append(("conference_room_participants_realtime_3_talking", "\(sizes.sorted()[sizes.count / 2])"))
        let sdes = ConferenceRoomServerBenchmark(seconds: roomSeconds, settle: 3, sdes: true)
        let sdesSize = try sdes.ramp(from: roomStart, step: roomStep, fine: roomFine, maximum: roomMaximum)
        figures.append(("conference_room_participants_realtime_3_talking_sdes", "\(sdesSize)"))
        return figures
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
