import ArgumentParser
import Dispatch
import Foundation
import Logging
import VoiceCore
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceTestAudio
import VoiceEmbedded

/// `voice-bench conference-load`: the load generator `voice-bench conference` runs in a process of
/// its own. It places `--participants` calls to a room, one client, the SDK's defaults (ICE +
/// DTLS-SRTP, Opus) or SDES. Each participant sends Opus frames encoded once in advance (speech
/// for the first `--talkers`, silence for the rest) with its own RTP header and SRTP, and checks
/// what it receives without decoding: loss, lateness, concealment and SRTP authentication on
/// every leg; every `--decode-every`th leg also decodes, and its level is sampled.
///
/// It prints `joined N` once every call is connected, waits `--settle` seconds, measures for
/// `--seconds`, prints one line `result {json}` and hangs up.
struct ConferenceLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conference-load", abstract: "Calls a conference room with light participants (used by `conference`).", shouldDisplay: false)

    @Option(help: "The room's SIP port on 127.0.0.1.") var port: Int
    @Option(help: "The room.") var room = "bench"
    @Option(help: "Participants.") var participants: Int
    @Option(help: "How many of them talk.") var talkers = 3
    @Option(help: "Seconds to settle before measuring.") var settle = 3.0
    @Option(help: "Seconds measured.") var seconds = 10.0
    @Option(help: "Every how many legs one decodes and has its level checked.") var decodeEvery = 10
    @Flag(help: "SDES-SRTP instead of ICE + DTLS-SRTP.") var sdes = false

    struct Result: Codable {
        var joined = 0
        var lost: Int64 = 0
        var late: Int = 0
        var concealed: Int = 0
        var authenticationFailures: UInt64 = 0
        var refusedFrames = 0
        var packetsReceived: UInt64 = 0
        var decodedLegs = 0
        var decodedLegsHearingSpeech = 0
        /// This process's CPU over the measured seconds, in CPU-seconds per second.
        var cpu = 0.0
        var lateFrames: Int { Int(lost) + late + concealed }
    }

    private final class Joined: CallDelegate, Sendable {
        let connected = Locked(0)
        let failed = Locked(0)
        func callDidConnect(_ call: Call) { connected.withLock { $0 += 1 } }
        func call(_ call: Call, didFailToConnectWithError error: VoiceError) { failed.withLock { $0 += 1 } }
        func call(_ call: Call, didDisconnectWithError error: VoiceError?) {}
    }

    func run() throws {
        let key = SharedEncodingKey(codec: .opus(.voice), ptime: 20, fec: false, lossHint: 0, bitrate: OpusSettings.voice.bitrate)
        let speech = try PreEncodedSpeech(TestSignals.speechLike(seconds: 10), key: key)
        var configuration = VoiceClientConfiguration(identity: "load", domain: "127.0.0.1", registers: false, logger: Self.quietLogger)
        if sdes { configuration.mediaSecurity = .sdesOverUnencryptedSignaling }
        let client = try VoiceClient(configuration: configuration)
        defer { client.shutdown() }
        let joined = Joined()
        let queue = DispatchQueue(label: "bench.load")
        var calls: [Call] = []
        var devices: [EncodedReplayDevice] = []
        for index in 0..<participants {
            let device = EncodedReplayDevice(
                frames: speech, talks: index < talkers, offset: index * 97, decodes: index % max(1, decodeEvery) == 0)
            devices.append(device)
            calls.append(
                client.connect(
                    options: ConnectOptions { builder in
                        builder.params = ["To": "sip:\(room)@127.0.0.1:\(port);conference"]
                        builder.delegateQueue = queue
                        builder.audioDevice = device
                    },
                    delegate: joined))
            _ = PollingWait.until(timeout: 10) { joined.connected.withLock { $0 } + joined.failed.withLock { $0 } > index }
        }
        var result = Result()
        result.joined = joined.connected.withLock { $0 }
        print("joined \(result.joined)")
        flushOutput()
        Thread.sleep(forTimeInterval: settle)
        let before = Self.figures(calls)
        let refusedBefore = devices.reduce(0) { $0 + $1.refused.load(ordering: .relaxed) }
        // The decoding legs' output level, sampled ten times a second: a listener hears the talkers.
        var loudest = [Int](repeating: 0, count: calls.count)
        let cpuBefore = ProcessFigures.cpuSeconds()
        let wallBefore = Date()
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            Thread.sleep(forTimeInterval: 0.1)
            for (index, level) in Self.outputLevels(calls, every: max(1, decodeEvery)) { loudest[index] = max(loudest[index], level) }
        }
        result.cpu = (ProcessFigures.cpuSeconds() - cpuBefore) / Date().timeIntervalSince(wallBefore)
        let after = Self.figures(calls)
        result.lost = after.lost - before.lost
        result.late = after.late - before.late
        result.concealed = after.concealed - before.concealed
        result.authenticationFailures = after.authenticationFailures - before.authenticationFailures
        result.packetsReceived = after.packetsReceived - before.packetsReceived
        result.refusedFrames = devices.reduce(0) { $0 + $1.refused.load(ordering: .relaxed) } - refusedBefore
        let decoding = stride(from: 0, to: calls.count, by: max(1, decodeEvery))
        result.decodedLegs = decoding.underestimatedCount
        result.decodedLegsHearingSpeech = decoding.filter { loudest[$0] > 1_000 }.count
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        print("result \(json)")
        flushOutput()
        for call in calls { call.disconnect() }
        Thread.sleep(forTimeInterval: 0.5)
    }

    private static func figures(_ calls: [Call]) -> Result {
        var total = Result()
        for stats in Call.streamStatistics(calls).compactMap({ $0 }) {
            total.lost += max(0, stats.packetsLost)
            total.late += stats.jitterBuffer.late
            total.concealed += stats.jitterBuffer.concealedFrames
            total.authenticationFailures += stats.srtpAuthFailures
            total.packetsReceived += stats.packetsReceived
        }
        return total
    }

    private static func outputLevels(_ calls: [Call], every: Int) -> [(Int, Int)] {
        let sampled = Array(stride(from: 0, to: calls.count, by: every))
        return zip(sampled, Call.streamStatistics(sampled.map { calls[$0] }, timeout: 2)).compactMap { index, stats in
            stats.map { (index, $0.outputLevel) }
        }
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "voice-bench.conference-load")
        logger.logLevel = .error
        return logger
    }
}
