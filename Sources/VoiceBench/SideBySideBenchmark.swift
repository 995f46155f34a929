import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import VoiceCore
import VoiceMedia
import VoiceMediaTypes
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit

/// `cpu_per_call_vs_baresip`, `rss_per_call_vs_baresip`: N calls between two baresip processes
/// and N calls between two of our clients (in this process), with the same settings: Opus
/// 48 kHz mono at 64 kbps and complexity 5 in the VoIP coding mode, 20 ms, SDES-SRTP with
/// AES_CM_128_HMAC_SHA1_80, speech from a file on both sides, no sound card. CPU seconds per
/// call-second and resident memory added per call, each from `/proc/<pid>`, measured over the
/// same window length one after the other.
///
/// baresip is told the coding mode and the channel count, since its defaults differ from ours
/// on both: `opus_application audio` codes 64 kbps speech with CELT alone where the VoIP mode
/// (ours, for SILK's in-band FEC) codes it with SILK, and `opus_stereo yes` makes it code its
/// two-channel audio as stereo. At those defaults it costs ~25 % less CPU per call than with the
/// same settings as ours: a different codec workload, not a faster engine.
struct SideBySideBenchmark {
    var calls = 10
    var seconds = 10.0

    struct Figures {
        var cpuPerCallSecond: Double
        var rssKiBPerCall: Double
    }

    func run() throws -> (ours: Figures, baresip: Figures) {
        let speech = TestSignals.speechLike(seconds: seconds + 20)
        let baresip = try baresipFigures(speech: speech)
        let ours = try ourFigures(speech: speech)
        return (ours, baresip)
    }

    private func baresipFigures(speech: [Int16]) throws -> Figures {
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "side-by-side")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/speech.wav"
        try BaresipWAVFile.write(speech, to: file, channels: 1)
        func peer(_ user: String, autoAnswer: Bool) throws -> BaresipPeer {
            var configuration = BaresipConfiguration()
            configuration.user = user
            configuration.autoAnswer = autoAnswer
            configuration.audioFile = file
            configuration.audioCodecs = ["opus/48000/1"]
            configuration.maxCalls = calls + 2
            configuration.opusBitrate = 64_000
            configuration.opusComplexity = 5
            configuration.opusApplication = "voip"
            configuration.opusStereo = false
            configuration.rtpPortCount = 4 * calls + 8
            return try BaresipPeer(configuration: configuration)
        }
        let callee = try peer("bob", autoAnswer: true)
        defer { callee.stop() }
        let caller = try peer("alice", autoAnswer: false)
        defer { caller.stop() }
        let pids = [caller.process.pid, callee.process.pid]
        let rss0 = pids.map(Self.residentKiB).reduce(0, +)
        for _ in 0..<calls {
            try caller.control.dial(callee.uri)
            Thread.sleep(forTimeInterval: 0.1)
        }
        let established = PollingWait.until(timeout: 20, every: 0.2) {
            ((try? caller.control.calls()) ?? []).filter { $0.state == "ESTABLISHED" }.count == calls
        }
        guard established else { throw BenchError("baresip: not all \(calls) calls were established; log:\n\(caller.process.logTail())") }
        Thread.sleep(forTimeInterval: 3)
        let cpu0 = pids.map(Self.cpuSeconds).reduce(0, +)
        let wall0 = Date()
        Thread.sleep(forTimeInterval: seconds)
        let cpu = pids.map(Self.cpuSeconds).reduce(0, +) - cpu0
        let wall = Date().timeIntervalSince(wall0)
        let rss1 = pids.map(Self.residentKiB).reduce(0, +)
        return Figures(cpuPerCallSecond: cpu / (Double(calls) * wall), rssKiBPerCall: (rss1 - rss0) / Double(calls))
    }

    private func ourFigures(speech: [Int16]) throws -> Figures {
        var quiet = Logger(label: "voice-bench")
        quiet.logLevel = .error
        func configuration(_ identity: String) -> VoiceClientConfiguration {
            var c = VoiceClientConfiguration(
                identity: identity, domain: "127.0.0.1", registers: false, logger: quiet)
            c.srtpSuites = [.aesCM128HmacSHA1_80]
            return c
        }
        let callee = try VoiceClient(configuration: configuration("bob"))
        defer { callee.shutdown() }
        let caller = try VoiceClient(configuration: configuration("alice"))
        defer { caller.shutdown() }
        let answerer = SetupAnswerer(device: { BufferAudioDevice(captureSamples: speech, loop: true, recording: false) })
        answerer.listen(on: callee, as: "bob")
        let pid = getpid()
        let rss0 = Self.residentKiB(pid)
        let delegate = SideBySideCallDelegate()
        var placed: [Call] = []
        for _ in 0..<calls {
            placed.append(
                caller.connect(
                    options: ConnectOptions(accessToken: BenchTokens.token("alice")) { builder in
                        builder.params = ["To": "sip:bob@127.0.0.1:\(callee.localEndpoint.port)"]
                        builder.delegateQueue = delegate.queue
                        builder.preferredAudioCodecs = [.opus()]
                        builder.audioDevice = BufferAudioDevice(captureSamples: speech, loop: true, recording: false)
                    },
                    delegate: delegate))
            Thread.sleep(forTimeInterval: 0.1)
        }
        defer { for call in placed { call.disconnect() } }
        guard PollingWait.until(timeout: 20, every: 0.2, { delegate.connected == calls }) else {
            throw BenchError("ours: \(delegate.connected) of \(calls) calls connected")
        }
        Thread.sleep(forTimeInterval: 3)
        let cpu0 = Self.cpuSeconds(pid)
        let wall0 = Date()
        Thread.sleep(forTimeInterval: seconds)
        let cpu = Self.cpuSeconds(pid) - cpu0
        let wall = Date().timeIntervalSince(wall0)
        let rss1 = Self.residentKiB(pid)
        return Figures(cpuPerCallSecond: cpu / (Double(calls) * wall), rssKiBPerCall: (rss1 - rss0) / Double(calls))
    }

    /// utime + stime of `pid`, in seconds (`/proc/<pid>/stat`, fields 14 and 15).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name (which may hold spaces): state is field 3.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory of `pid` in KiB (`/proc/<pid>/statm`).
    static func residentKiB(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}

/// Counts connected calls.
final class SideBySideCallDelegate: CallDelegate, Sendable {
    let queue = DispatchQueue(label: "voice-bench-side-by-side")
    private let count = Locked(0)
    var connected: Int { count.withLock { $0 } }
    func callDidConnect(_ call: Call) { count.withLock { $0 += 1 } }
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { print("side by side: a call failed: \(error)".escapingControlCharacters) }
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {}
}
