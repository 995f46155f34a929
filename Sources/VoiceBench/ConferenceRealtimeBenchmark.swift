import VoiceTestKit
import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import ArgumentParser
import VoiceConference
import VoiceCore
import VoiceMedia
import VoiceTestAudio
import VoiceSupport

/// `conference_participants_realtime`: the most participants one room carries in real time with
/// no late frame. Each participant is an SDK client of its own (a `VoiceClient` with a buffer
/// device playing speech, its default settings: ICE + DTLS-SRTP, Opus) calling the room over
/// loopback in this process; the room is a `ConferenceServer` on another client. So a room of N
/// is 2N stream endpoints here (each participant's and the room's leg) plus the mixing.
/// Late: a mixing period that started more than two periods late, or, on any leg of either side, a render
/// underrun, dropped capture, or a packet the jitter buffer found late or had to conceal (on a
/// clean loopback link each of those means something fell behind).
struct ConferenceRealtimeBenchmark {
    let step: Int
    let maximum: Int
    let seconds: Double

    struct Measurement {
        var participants: Int
        var lateMixing: Int
        var lateFrames: LateFrames
        /// The part of ``lateFrames`` on the room's legs (the rest is on the participants' clients).
        var roomSide = LateFrames()
        var engineOverruns = 0
        var engineMaxTickMicroseconds = 0
        var cpuUtilization: Double
        /// Participants whose call did not join (the room counts as failed at this size).
        var notJoined = 0
        var failed: Bool { lateMixing > 0 || lateFrames.total > 0 || notJoined > 0 }
    }

    /// Ramps by `step` until a count has late frames, then by 2 from the last good one.
    func run() throws -> (best: Measurement?, failedAt: Int?) {
        var best: Measurement?
        var count = step
        var failed: Int?
        while count <= maximum {
            let m = try measure(participants: count)
            report(m)
            if m.failed {
                failed = count
                break
            }
            best = m
            count += step
        }
        if let failedAt = failed {
            var fine = (best?.participants ?? 0) + 2
            while fine < failedAt {
                let m = try measure(participants: fine)
                report(m)
                if m.failed { break }
                best = m
                fine += 2
            }
        }
        return (best, failed)
    }

    private func report(_ m: Measurement) {
        if m.notJoined > 0 { return }
        print(
            String(
                format:
                    "conference room of %d: mixing periods over 20 ms late %d, late frames %llu (underruns %llu, dropped capture %llu, concealed %llu, late packets %llu; on the room's legs %llu: underruns %llu, concealed %llu, late %llu), engine overruns %d (longest tick %d µs), CPU %.0f%%",
                m.participants, m.lateMixing, m.lateFrames.total, m.lateFrames.underruns, m.lateFrames.overflows, m.lateFrames.concealed,
                m.lateFrames.late, m.roomSide.total, m.roomSide.underruns, m.roomSide.concealed, m.roomSide.late, m.engineOverruns,
                m.engineMaxTickMicroseconds, m.cpuUtilization * 100))
        flushOutput()
    }

    private final class Counter: CallDelegate, Sendable {
        let connected = Locked(0)
        let failed = Locked(0)
        func callDidConnect(_ call: Call) { connected.withLock { $0 += 1 } }
        func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
            failed.withLock { $0 += 1 }
            print("a participant failed to join: \(error.code.rawValue) \(error)")
        }
        func call(_ call: Call, didDisconnectWithError error: VoiceError?) {}
    }

    func measure(participants: Int) throws -> Measurement {
        let server = try VoiceClient(
            configuration: VoiceClientConfiguration(
                identity: "rooms", domain: "127.0.0.1", registers: false, logger: Self.quietLogger))
        let room = ConferenceServer(
            client: server, options: ConferenceServerOptions(maximumParticipants: participants), delegateQueue: DispatchQueue(label: "bench.room"))
        let started = DispatchSemaphore(value: 0)
        room.start { _ in started.signal() }
        started.wait()
        defer {
            room.stop()
            server.shutdown()
        }
        let speech = TestSignals.speechLike(seconds: 10)
        let queue = DispatchQueue(label: "bench.participants")
        let counter = Counter()
        var clients: [VoiceClient] = []
        var calls: [Call] = []
        defer { for client in clients { client.shutdown() } }
        let address = "sip:bench@127.0.0.1:\(server.localEndpoint.port);conference"
        for index in 0..<participants {
            // Each a different stretch of speech, so the mixes differ.
            let offset = (index * 7_919) % speech.count
            let device = BufferAudioDevice(captureSamples: Array(speech[offset...] + speech[..<offset]), loop: true, recording: false)
            let client = try VoiceClient(
                configuration: VoiceClientConfiguration(
                    identity: "p\(index)", domain: "127.0.0.1", registers: false, logger: Self.quietLogger),
                audioDevice: device)
            clients.append(client)
            calls.append(
                client.connect(
                    options: ConnectOptions { builder in
                        builder.params = ["To": address]
                        builder.delegateQueue = queue
                    },
                    delegate: counter))
            // One at a time: the room sees them ring as a stream of arrivals, not a burst from one source.
            _ = PollingWait.until(timeout: 10) { counter.connected.withLock { $0 } + counter.failed.withLock { $0 } > index }
        }
        guard PollingWait.until(timeout: 10, { room.participants(in: "bench").count == participants }) else {
            let joined = room.participants(in: "bench").count
            print("only \(joined) of \(participants) joined")
            for call in calls { call.disconnect() }
            return Measurement(
                participants: participants, lateMixing: 0, lateFrames: LateFrames(), cpuUtilization: 0, notJoined: participants - joined)
        }
        let roomCalls = room.participants(in: "bench").compactMap { room.call(of: $0) }
        Thread.sleep(forTimeInterval: 2)  // Jitter buffers settle; FEC switches off after the first reports.
        let lateBefore = room.lateMixingPeriods
        let framesBefore = Self.lateFrames(calls)
        let roomBefore = Self.lateFrames(roomCalls)
        MediaEngine.shared.resetStats()
        let cpuBefore = ProcessFigures.cpuSeconds()
        let wallBefore = Date()
        Thread.sleep(forTimeInterval: seconds)
        let cpu = (ProcessFigures.cpuSeconds() - cpuBefore) / Date().timeIntervalSince(wallBefore)
            / Double(ProcessInfo.processInfo.activeProcessorCount)
        let engine = MediaEngine.shared.stats
        let roomSide = Self.lateFrames(roomCalls) - roomBefore
        let participantSide = Self.lateFrames(calls) - framesBefore
        let lateMixing = room.lateMixingPeriods - lateBefore
        for call in calls { call.disconnect() }
        return Measurement(
            participants: participants, lateMixing: lateMixing, lateFrames: participantSide + roomSide, roomSide: roomSide,
            engineOverruns: engine.overruns, engineMaxTickMicroseconds: engine.maxTickMicroseconds, cpuUtilization: cpu)
    }

    /// Render underruns, dropped capture, concealed and late packets over `calls`, so far (the
    /// capacity benchmark's ``LateFrames``; engine overruns are not read here).
    static func lateFrames(_ calls: [Call]) -> LateFrames {
        var total = LateFrames()
        for stats in Call.streamStatistics(calls).compactMap({ $0 }) {
            total.underruns += stats.renderUnderruns
            total.overflows += stats.captureOverflows
            total.concealed += UInt64(stats.jitterBuffer.concealedFrames)
            total.late += UInt64(stats.jitterBuffer.late)
        }
        return total
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "voice-bench.conference")
        logger.logLevel = .error
        return logger
    }
}
