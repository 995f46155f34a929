import Dispatch
import Foundation
import Logging
import VoiceConference
import VoiceCore
import VoiceMedia
import VoiceService
import VoiceSupport

/// The room server alone: a `ConferenceServer` in this process, called by `voice-bench
/// conference-load` in another (light participants: pre-encoded Opus, no decoding but on a
/// sample of legs). What this process spends is the room's cost.
struct ConferenceRoomServerBenchmark {
    let seconds: Double
    let settle: Double
    let sdes: Bool
    /// Profiling: print the load generator's command line and wait for someone to run it,
    /// instead of starting it (a profiler's process cannot always spawn one).
    var externalLoad = false

    struct Measurement {
        var participants: Int
        var talkers: Int
        var sharesEncoding: Bool
        var skipsAnnouncedSilence = true
        var joined = 0
        /// This process's CPU over the measured seconds, in CPU-seconds per second.
        var cpu = 0.0
        var lateMixing = 0
        var roomSide = LateFrames()
        var load = ConferenceLoad.Result()
        var sharedFrames = 0
        /// Received frames the room's legs did not decode (announced silence), over the measured seconds.
        var framesNotDecoded: UInt64 = 0
        /// Legs that stopped believing their peer's announced silence (a check heard sound).
        var distrusted = 0
        var privateFrames = 0
        var groupEncodes = 0
        /// The room process's CPU by thread kind over the measured seconds.
        var threads = ""
        var failed: Bool {
            joined < participants || lateMixing > 0 || roomSide.total > 0 || load.lateFrames > 0 || load.authenticationFailures > 0
                || load.decodedLegsHearingSpeech < load.decodedLegs
        }
    }

    /// - Parameter skipsAnnouncedSilence: false: the room decodes every frame, as for listeners
    ///   whose background noise is above the mixer's silence level.
    func measure(participants: Int, talkers: Int = 3, sharesEncoding: Bool = true, skipsAnnouncedSilence: Bool = true) throws -> Measurement {
        var configuration = VoiceClientConfiguration(identity: "rooms", domain: "127.0.0.1", registers: false, logger: ConferenceLoad.quietLogger)
        if sdes { configuration.mediaSecurity = .automaticOverUnencryptedSignaling }
        // A room server of up to 1,000 calls, without the media engine's overload refusal (503):
        // the ramp finds the size by late frames, and the per-leg baseline must seat the whole
        // room to be compared with shared encodes.
        var settings = VoiceServerSettings()
        settings.limits.maximumCalls = 1_000
        settings.limits.maximumMediaLoad = nil
        let server = try VoiceClient(configuration: configuration, server: settings)
        var options = ConferenceServerOptions(maximumParticipants: participants)
        options.sharesEncoding = sharesEncoding
        options.skipsAnnouncedSilence = skipsAnnouncedSilence
        let room = ConferenceServer(client: server, options: options, delegateQueue: DispatchQueue(label: "bench.room"))
        let started = DispatchSemaphore(value: 0)
        room.start { _ in started.signal() }
        started.wait()
        defer {
            room.stop()
            server.shutdown()
        }
        var m = Measurement(participants: participants, talkers: talkers, sharesEncoding: sharesEncoding, skipsAnnouncedSilence: skipsAnnouncedSilence)
        let loadArguments = [
            "conference-load", "--port", "\(server.localEndpoint.port)", "--participants", "\(participants)", "--talkers", "\(talkers)",
            "--settle", "\(settle)", "--seconds", "\(seconds)",
        ] + (sdes ? ["--sdes"] : [])
        if externalLoad {
            print("waiting \(Int(settle + seconds + 20)) s for: voice-bench \(loadArguments.joined(separator: " "))")
            flushOutput()
            Thread.sleep(forTimeInterval: settle + seconds + 20)
            m.joined = room.participants(in: "bench").count
            return m
        }
        let load = Process()
        // This program's own path (not "/proc/self/exe" itself: under a profiler that names the profiler).
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"
        load.executableURL = URL(fileURLWithPath: exe)
        load.arguments = loadArguments
        let pipe = Pipe()
        load.standardOutput = pipe
        let lines = LineReader(pipe.fileHandleForReading)
        try load.run()
        defer { if load.isRunning { load.terminate() } }
        guard let joinedLine = lines.next(timeout: 30 + Double(participants) * 0.5), joinedLine.hasPrefix("joined ") else {
            print("conference-load did not report its calls joined")
            return m
        }
        m.joined = Int(joinedLine.dropFirst(7)) ?? 0
        Thread.sleep(forTimeInterval: settle)
        let roomCalls = room.participants(in: "bench").compactMap { room.call(of: $0) }
        let lateBefore = room.lateMixingPeriods
        let roomBefore = ConferenceRealtimeBenchmark.lateFrames(roomCalls)
        let undecodedBefore = Self.undecoded(roomCalls).frames
        let encodingBefore = room.encodingFigures
        let cpuBefore = ProcessFigures.cpuSeconds()
        let threadsBefore = ProcessFigures.cpuSecondsByThread()
        let wallBefore = Date()
        guard let resultLine = lines.next(timeout: seconds + 30), resultLine.hasPrefix("result ") else {
            print("conference-load gave no result")
            return m
        }
        let wall = Date().timeIntervalSince(wallBefore)
        m.cpu = (ProcessFigures.cpuSeconds() - cpuBefore) / wall
        m.threads = ProcessFigures.threadShares(from: threadsBefore, to: ProcessFigures.cpuSecondsByThread(), seconds: wall)
        m.roomSide = ConferenceRealtimeBenchmark.lateFrames(roomCalls) - roomBefore
        let undecoded = Self.undecoded(roomCalls)
        // Per call, where both readings came.
        m.framesNotDecoded = zip(undecoded.frames, undecodedBefore).reduce(0) { sum, pair in
            guard let after = pair.0, let before = pair.1, after >= before else { return sum }
            return sum + (after - before)
        }
        m.distrusted = undecoded.distrusted
        m.lateMixing = room.lateMixingPeriods - lateBefore
        let encoding = room.encodingFigures
        m.sharedFrames = encoding.shared - encodingBefore.shared
        m.privateFrames = encoding.private - encodingBefore.private
        m.groupEncodes = encoding.groupEncodes - encodingBefore.groupEncodes
        m.load = try JSONDecoder().decode(ConferenceLoad.Result.self, from: Data(resultLine.dropFirst(7).utf8))
        load.waitUntilExit()
        return m
    }

    /// Each call's frames not decoded so far (nil where its figures did not come), and how
    /// many calls stopped believing their peer's announced levels.
    static func undecoded(_ calls: [Call]) -> (frames: [UInt64?], distrusted: Int) {
        let stats = Call.streamStatistics(calls)
        return (stats.map { $0?.framesNotDecoded }, stats.filter { $0?.announcedLevelsDistrusted == true }.count)
    }

    func report(_ m: Measurement) {
        print(
            String(
                format:
                    "conference room server, %d participants (%d talking, %@, %@%@): joined %d, room process CPU %.0f%% of one core (load generator %.0f%%), mixing periods late %d, room legs late frames %llu, participants' legs lost %lld late %d concealed %d SRTP failures %llu, frames shared %d / own %d, group encodes %d, received frames not decoded %llu (legs distrusting their peer's levels %d), decoded legs hearing speech %d of %d; room threads: %@",
                m.participants, m.talkers, m.sharesEncoding ? "shared encodes" : "per-leg encodes", sdes ? "SDES" : "ICE + DTLS-SRTP",
                m.skipsAnnouncedSilence ? "" : ", every frame decoded", m.joined,
                m.cpu * 100, m.load.cpu * 100, m.lateMixing, m.roomSide.total, m.load.lost, m.load.late, m.load.concealed, m.load.authenticationFailures,
                m.sharedFrames, m.privateFrames, m.groupEncodes, m.framesNotDecoded, m.distrusted, m.load.decodedLegsHearingSpeech, m.load.decodedLegs, m.threads))
        flushOutput()
    }

    /// The largest room with no late frame on any leg: up by `step` from `start` until a size
    /// fails, then halving the interval between the last good size and the first bad one down
    /// to `fine`.
    func ramp(from start: Int, step: Int, fine: Int, maximum: Int) throws -> Int {
        var good = 0
        var bad: Int?
        var count = start
        while count <= maximum {
            let m = try measure(participants: count)
            report(m)
            if m.failed {
                bad = count
                break
            }
            good = count
            count += step
        }
        guard var bad else { return good }
        while bad - good > fine {
            let middle = (good + bad) / 2
            let m = try measure(participants: middle)
            report(m)
            if m.failed { bad = middle } else { good = middle }
        }
        return good
    }
}

/// Reads a child's output line by line on a thread of its own.
final class LineReader: @unchecked Sendable {
    // @unchecked: `lines` is behind its lock; the semaphore counts them.
    private let lines = Locked<[String]>([])
    private let available = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    lines.withLock { $0.append(line) }
                    available.signal()
                }
            }
        }
        thread.start()
    }

    /// The next line, or nil after `timeout` seconds.
    func next(timeout: Double) -> String? {
        guard available.wait(timeout: .now() + timeout) == .success else { return nil }
        return lines.withLock { $0.removeFirst() }
    }
}
