import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import VoiceCore
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent
import VoiceTestKit
import VoiceTestAudio
import VoiceSupport

/// How long the caller's signaling event loop is held up while many calls start and end: a
/// 1 ms repeating task on that loop records how late each run is, while `calls` calls (each
/// with its own buffer device, as a server would run them) are placed at once to an
/// auto-answering client, held, and hung up at once. Both clients use default settings (UDP,
/// SRTP, Opus); the caller runs on a one-thread group of its own so the probe sees exactly
/// what its calls cost that loop.
struct LoopStallBenchmark {
    struct Result {
        var maxStallMilliseconds: Double
        var p99StallMilliseconds: Double
        /// How much of the worst stall the loop thread spent running (the rest it waited for a core).
        var worstStallWorkMilliseconds: Double
        /// When the worst stall ended, ms after the probe started (the calls are placed right after).
        var worstStallAtMilliseconds: Double
        var setupSeconds: Double
        var teardownSeconds: Double
        var connected: Int
        /// How the caller's loop thread is scheduled.
        var profile: SignalingThreadProfile
    }

    let calls: Int
    let holdSeconds: Double

    func run() throws -> Result {
        var quiet = Logger(label: "voice-bench")
        quiet.logLevel = .error
        // The group an app would make for its clients (the SDK's profile for signaling threads).
        let callerGroup = VoiceClient.makeEventLoopGroup(numberOfThreads: 1)
        let profile = try callerGroup.next().submit { SignalingThreadProfile.current }.wait()
        defer { try? callerGroup.syncShutdownGracefully() }
        var limits = SIPUserAgentLimits()
        limits.maximumCalls = max(limits.maximumCalls, calls)
        limits.maximumRingingCallsPerSource = max(limits.maximumRingingCallsPerSource, calls)
        var calleeConfiguration = VoiceClientConfiguration(
            identity: "callee", domain: "127.0.0.1", registers: false, logger: quiet)
        calleeConfiguration.limits = limits
        var callerConfiguration = VoiceClientConfiguration(
            identity: "caller", domain: "127.0.0.1", registers: false, logger: quiet)
        callerConfiguration.limits = limits
        let callee = try VoiceClient(configuration: calleeConfiguration)
        let caller = try VoiceClient(configuration: callerConfiguration, audioDevice: nil, eventLoopGroup: callerGroup)
        defer {
            caller.shutdown()
            callee.shutdown()
        }
        let tone = TestSignals.multiTone([(440, 8_000)], seconds: 1)
        let answerer = SetupAnswerer(device: { BufferAudioDevice(captureSamples: tone, loop: true) })
        answerer.listen(on: callee, as: "callee")

        let probe = LoopStallProbe(loop: callerGroup.next())
        probe.start()
        let delegate = BenchCallDelegate()
        let started = Date()
        let placed = (0..<calls).map { _ in
            caller.connect(
                options: ConnectOptions(accessToken: BenchTokens.token("caller")) { builder in
                    builder.params = ["To": "sip:callee@127.0.0.1:\(callee.localEndpoint.port)"]
                    builder.delegateQueue = delegate.queue
                    builder.audioDevice = BufferAudioDevice(captureSamples: tone, loop: true)
                },
                delegate: delegate)
        }
        _ = PollingWait.until(timeout: 30, every: 0.005) { delegate.counts.connected + delegate.counts.ended >= calls }
        let setup = Date().timeIntervalSince(started)
        let connected = delegate.counts.connected
        Thread.sleep(forTimeInterval: holdSeconds)
        let ending = Date()
        for call in placed { call.disconnect() }
        _ = PollingWait.until(timeout: 30, every: 0.005) { delegate.counts.ended >= calls }
        let teardown = Date().timeIntervalSince(ending)
        let stalls = probe.stop()
        return Result(
            maxStallMilliseconds: stalls.max, p99StallMilliseconds: stalls.p99,
            worstStallWorkMilliseconds: stalls.worstGapWork, worstStallAtMilliseconds: stalls.worstAt, setupSeconds: setup,
            teardownSeconds: teardown, connected: connected, profile: profile)
    }
}

/// A repeating 1 ms task on one loop that records how late each run starts.
private final class LoopStallProbe: @unchecked Sendable {
    // @unchecked: every var is touched on `loop` only (and read after `stop`).
    private let loop: any EventLoop
    private var task: RepeatedTask?
    private var last: NIODeadline?
    private var lastCPU = 0.0
    private var lateness: [Double] = []
    private var worst = 0.0
    /// The loop thread's own CPU time within the worst gap, ms.
    private var worstGapWork = 0.0
    /// When the worst gap ended, in ms since `start`.
    private var worstAt = 0.0
    private var started = NIODeadline.now()

    init(loop: any EventLoop) { self.loop = loop }

    func start() {
        try? loop.submit {
            self.lateness.reserveCapacity(100_000)
            self.started = .now()
            self.task = self.loop.scheduleRepeatedTask(initialDelay: .milliseconds(1), delay: .milliseconds(1)) { _ in
                let now = NIODeadline.now()
                let cpu = ProcessFigures.threadCPUSeconds()
                if let last = self.last {
                    // The task runs 1 ms after the previous run ended; anything beyond is the loop's delay.
                    let late = max(0, Double((now - last).nanoseconds) / 1e6 - 1)
                    if late > self.worst {
                        self.worst = late
                        self.worstGapWork = (cpu - self.lastCPU) * 1000
                        self.worstAt = Double((now - self.started).nanoseconds) / 1e6
                    }
                    self.lateness.append(late)
                }
                self.lastCPU = ProcessFigures.threadCPUSeconds()
                self.last = NIODeadline.now()
            }
        }.wait()
    }

    func stop() -> (max: Double, p99: Double, worstGapWork: Double, worstAt: Double) {
        let (sorted, work, at) = (try? loop.submit { () -> ([Double], Double, Double) in
            self.task?.cancel()
            return (self.lateness.sorted(), self.worstGapWork, self.worstAt)
        }.wait()) ?? ([], 0, 0)
        guard let max = sorted.last else { return (0, 0, 0, 0) }
        return (max, sorted[min(sorted.count - 1, sorted.count * 99 / 100)], work, at)
    }
}

/// Counts connected and ended calls.
private final class BenchCallDelegate: CallDelegate, Sendable {
    struct Counts {
        var connected = 0
        var ended = 0
    }

    let queue = DispatchQueue(label: "voice-bench-calls")
    private let box = Locked(Counts())
    var counts: Counts { box.withLock { $0 } }

    func callDidConnect(_ call: Call) { box.withLock { $0.connected += 1 } }
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { box.withLock { $0.ended += 1 } }
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) { box.withLock { $0.ended += 1 } }
}
