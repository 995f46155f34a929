import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import NIOPosix
import VoiceCore
import VoiceMedia
import VoiceSIPAgent
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit

/// `call_setups_per_s`: complete calls (INVITE … 1 s of media … BYE) one client places and
/// another answers through Kamailio (its dispatcher configuration, the answering client as the
/// one destination), started at a fixed rate. A rate is sustained when every call connects and
/// ends normally and the calls keep up with it: the median setup stays under 250 ms (an
/// overloaded process still connects every call, seconds late, as its queues grow). Rates go
/// up until one is not sustained. Both clients run with limits raised for the
/// load (a server would) and trust the proxy; each call has buffer devices of its own.
///
/// Both clients key media with ``security``: SDES (`call_setups_per_s`, keys in the SDP, the
/// call connects on the answer) or ICE + DTLS-SRTP (`call_setups_per_s_dtls`, connectivity
/// checks and a handshake per call before it connects).
struct CallRateBenchmark {
    var rates: [Int] = [25, 50, 75, 100, 125, 150]
    var callsPerRate = 1_000
    var mediaSeconds = 1.0
    var codecs: [AudioCodec] = AudioCodec.defaultPreference
    var security = MediaSecurity.sdes

    struct Step {
        var rate: Int
        var placed: Int
        var connected: Int
        var failed: Int
        var seconds: Double
        var cpuUtilization: Double
        var failures: [String: Int]
        var setupP50Milliseconds: Double
        var sustained: Bool { failed == 0 && setupP50Milliseconds < 250 }
    }

    func run() throws -> [Step] {
        var limits = SIPUserAgentLimits(
            maximumTransactions: 65_536, maximumServerTransactions: 49_152, maximumServerTransactionsPerSource: 49_152,
            maximumCalls: 1_024, maximumRingingCallsPerSource: 1_024)
        limits.retryAfterSeconds = 1
        let tone = TestSignals.multiTone([(440, 8_000)], seconds: 1)
        let codecs = self.codecs
        let answerer = RateAnswerer(codecs: codecs) { BufferAudioDevice(captureSamples: tone, loop: true, recording: false) }
        let bench = try KamailioCallBench(limits: limits, logLevel: .error, answerer: answerer, security: security)
        defer { bench.stop() }
        let caller = bench.caller

        var steps: [Step] = []
        for rate in rates {
            let tally = RateTally()
            let clock = MonotonicMediaClock()
            let started = clock.now()
            let cpu0 = ProcessFigures.cpuSeconds()
            let loads = LoadSampler(engine: .shared)
            let interval = 1.0 / Double(rate)
            for i in 0..<callsPerRate {
                let due = started + MediaTime(nanoseconds: Int64(Double(i) * interval * 1e9))
                let wait = due - clock.now()
                if wait.nanoseconds > 0 { Thread.sleep(forTimeInterval: wait.seconds) }
                let delegate = RateCallDelegate(tally: tally, clock: clock, placedAt: clock.now(), mediaSeconds: mediaSeconds)
                _ = caller.connect(
                    options: ConnectOptions(accessToken: BenchTokens.token("caller")) { builder in
                        builder.params = ["To": "service"]
                        builder.delegateQueue = delegate.queue
                        builder.preferredAudioCodecs = codecs
                        builder.audioDevice = BufferAudioDevice(captureSamples: tone, loop: true, recording: false)
                    },
                    delegate: delegate)
            }
            _ = PollingWait.until(timeout: 60, every: 0.05) { tally.ended >= callsPerRate }
            let load = loads.stop()
            let seconds = (clock.now() - started).seconds
            let cpu = (ProcessFigures.cpuSeconds() - cpu0) / seconds / Double(ProcessInfo.processInfo.activeProcessorCount)
            let summary = tally.summary
            let step = Step(
                rate: rate, placed: callsPerRate, connected: summary.connected, failed: callsPerRate - summary.normalEnds,
                seconds: seconds, cpuUtilization: cpu, failures: summary.failures, setupP50Milliseconds: summary.setupP50)
            print(
                String(
                    format:
                        "%@: %d calls/s × %d (%.1f s of media each): %d connected, %d failed %@, %.1f s, setup p50 %.1f ms, this process's CPU %.0f%%, media load p50 %.2f max %.2f",
                    security == .dtls ? "rate dtls" : "rate", rate, callsPerRate, mediaSeconds, step.connected, step.failed,
                    step.failures.isEmpty ? "" : "\(step.failures)", seconds, step.setupP50Milliseconds, cpu * 100, load.median, load.max))
            flushOutput()
            steps.append(step)
            if !step.sustained { break }
            // Let the last calls' transactions and media wind down before the next rate.
            Thread.sleep(forTimeInterval: 2)
        }
        return steps
    }
}

/// Calls connected, ended normally, and failed by reason, over one rate step.
final class RateTally: Sendable {
    struct Summary {
        var connected = 0
        var normalEnds = 0
        var ended = 0
        var failures: [String: Int] = [:]
        var setups: [Double] = []
        var setupP50: Double { setups.isEmpty ? 0 : setups.sorted()[setups.count / 2] }
    }
    private let box = Locked(Summary())
    var ended: Int { box.withLock { $0.ended } }
    var summary: Summary { box.withLock { $0 } }

    func connected(setupMilliseconds: Double) {
        box.withLock {
            $0.connected += 1
            $0.setups.append(setupMilliseconds)
        }
    }

    func ended(error: VoiceError?, connected: Bool) {
        box.withLock {
            $0.ended += 1
            if let error {
                $0.failures["\(error.code.rawValue)", default: 0] += 1
            } else if connected {
                $0.normalEnds += 1
            }
        }
    }
}

/// One call: hangs up `mediaSeconds` after it connects.
final class RateCallDelegate: CallDelegate, Sendable {
    let queue = DispatchQueue(label: "voice-bench-rate")
    let tally: RateTally
    let clock: MonotonicMediaClock
    let placedAt: MediaTime
    let mediaSeconds: Double
    private let wasConnected = Locked(false)

    init(tally: RateTally, clock: MonotonicMediaClock, placedAt: MediaTime, mediaSeconds: Double) {
        self.tally = tally
        self.clock = clock
        self.placedAt = placedAt
        self.mediaSeconds = mediaSeconds
    }

    func callDidConnect(_ call: Call) {
        wasConnected.withLock { $0 = true }
        tally.connected(setupMilliseconds: (clock.now() - placedAt).milliseconds)
        queue.asyncAfter(deadline: .now() + mediaSeconds) { call.disconnect() }
    }

    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { tally.ended(error: error, connected: false) }

    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {
        tally.ended(error: error, connected: wasConnected.withLock { $0 })
    }
}

/// Accepts every invite at once with a device of its own.
final class RateAnswerer: NotificationDelegate, Sendable {
    let queue = DispatchQueue(label: "voice-bench-rate-callee")
    private let codecs: [AudioCodec]
    private let device: @Sendable () -> any AudioDevice
    private let delegate = SetupCalleeDelegate()

    init(codecs: [AudioCodec], device: @escaping @Sendable () -> any AudioDevice) {
        self.codecs = codecs
        self.device = device
    }

    func callInviteReceived(_ callInvite: CallInvite) {
        _ = callInvite.accept(
            options: AcceptOptions(callInvite: callInvite) { builder in
                builder.delegateQueue = self.delegate.queue
                builder.preferredAudioCodecs = self.codecs
                builder.audioDevice = self.device()
            },
            delegate: delegate)
    }

    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}
}

/// Samples the media engine's load (what `maximumMediaLoad` is checked against) every 100 ms
/// on a thread of its own until stopped.
final class LoadSampler: Sendable {
    private let samples = Locked<[Double]>([])
    private let running = Locked(true)
    private let done = DispatchSemaphore(value: 0)

    init(engine: MediaEngine) {
        let thread = Thread { [self] in
            while running.withLock({ $0 }) {
                let load = engine.load
                samples.withLock { $0.append(load) }
                Thread.sleep(forTimeInterval: 0.1)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops sampling; the median and the largest sample.
    func stop() -> (median: Double, max: Double) {
        running.withLock { $0 = false }
        done.wait()
        let sorted = samples.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { return (0, 0) }
        return (sorted[sorted.count / 2], sorted[sorted.count - 1])
    }
}
