import Dispatch
import NIOCore
import Synchronization
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// A short test call that tells whether this network and this server can carry calls, as
/// Twilio's `PreflightTest`: made by ``VoiceClient/runPreflight(options:delegate:)``, it calls
/// an echo, samples the call's figures each second for ``PreflightOptions/duration``, hangs up
/// and reports (``PreflightReport``). Its delegate hears each step.
public final class PreflightTest: Sendable {
    /// Where a test is.
    public enum State: String, Hashable, Sendable {
        /// Placing the call.
        case connecting
        /// The call is up and being sampled.
        case connected
        /// The test ran; ``report`` is set.
        case completed
        /// The test could not run, or was stopped.
        case failed
    }

    private struct Shared: Sendable {
        var state = State.connecting
        var callSid: String?
        var report: PreflightReport?
        var latestSample: PreflightSample?
        var recorder: PreflightRecorder
        var lastStats: AudioStreamStats?
        var call: Call?
        var sampling: RepeatedTask?
        var ending: Scheduled<Void>?
        var stopping = false
        /// The duration ran out and the test hung up: the call's end completes it.
        var hangingUp = false
    }

    private let shared: Mutex<Shared>
    private let client: VoiceClient
    private let options: PreflightOptions
    private let delegate: any PreflightDelegate
    /// The call's delegate: hands its callbacks to the test.
    private let callDelegate: PreflightCallDelegate

    /// Where the test is now.
    public var state: State { shared.withLock { $0.state } }
    /// The test call's SID, once it has one.
    public var callSid: String? { shared.withLock { $0.callSid } }
    /// The report, once the test completed.
    public var report: PreflightReport? { shared.withLock { $0.report } }
    /// The latest sample.
    public var latestSample: PreflightSample? { shared.withLock { $0.latestSample } }

    init(client: VoiceClient, options: PreflightOptions, delegate: any PreflightDelegate) {
        self.client = client
        self.options = options
        self.delegate = delegate
        shared = Mutex(Shared(recorder: PreflightRecorder(startedAt: client.now)))
        callDelegate = PreflightCallDelegate()
    }

    /// Places the call.
    func start() {
        let seconds = options.duration / .seconds(1)
        guard seconds >= 1, seconds <= 300 else {
            fail(VoiceError(.malformedRequest, failureReason: "a preflight lasts 1 s to 5 min, not \(options.duration)"))
            return
        }
        callDelegate.test = self
        let device = options.audioDevice ?? PreflightSignal.device()
        let connect = ConnectOptions(accessToken: options.accessToken) {
            $0.params = ["To": self.options.destination]
            $0.preferredAudioCodecs = self.options.preferredAudioCodecs
            $0.audioDevice = device
            $0.audioProcessing = AudioProcessingOptions.none
            $0.delegateQueue = self.callDelegate.queue
        }
        let call = client.connect(options: connect, delegate: callDelegate)
        shared.withLock { $0.call = call }
    }

    /// Stops the test: the call hangs up and the test fails with 31008 (cancelled), unless it
    /// had already ended.
    public func stop() {
        let call = shared.withLock { s -> Call? in
            // Too late once the duration ran out: the test is completing.
            guard s.state == .connecting || s.state == .connected, !s.hangingUp else { return nil }
            s.stopping = true
            return s.call
        }
        guard let call else { return }
        call.disconnect()
    }

    // MARK: - The call's events (on the call's delegate queue)

    fileprivate func connected(_ call: Call) {
        shared.withLock {
            $0.state = .connected
            $0.callSid = call.sid.isEmpty ? nil : call.sid
        }
        client.onLoop { [self] in
            let core = call.core.withLock { $0 }
            let now = client.now
            shared.withLock {
                if let answered = core?.answeredAt { $0.recorder.answered(at: answered) }
                $0.recorder.connected(at: now)
            }
            startSampling(core)
        }
        let delegate = self.delegate
        options.delegateQueue.async { delegate.preflightDidConnect(self) }
    }

    /// Samples each second on the client's loop, and hangs up when the duration has passed.
    private func startSampling(_ core: CallCore?) {
        guard let core else { return }
        let loop = core.eventLoop
        let sampling = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [weak self, weak core] _ in
            guard let self, let stats = core?.media?.stats else { return }
            self.sample(stats)
        }
        let nanoseconds = Int64(options.duration / .nanoseconds(1))
        let ending = loop.scheduleTask(in: .nanoseconds(nanoseconds)) { [weak self, weak core] in
            // On the loop, as the sampling: it takes no sample after this one.
            sampling.cancel()
            guard let self else { return }
            if let stats = core?.media?.stats { self.sample(stats) }
            let call = self.shared.withLock { s -> Call? in
                s.hangingUp = true
                return s.call
            }
            call?.disconnect()
        }
        shared.withLock {
            $0.sampling = sampling
            $0.ending = ending
        }
    }

    private func sample(_ stats: AudioStreamStats) {
        let now = client.now
        let sample = shared.withLock { s -> PreflightSample? in
            guard s.state == .connected else { return nil }
            s.lastStats = stats
            let sample = s.recorder.sample(stats, at: now)
            if let sample { s.latestSample = sample }
            return sample
        }
        guard let sample else { return }
        let delegate = self.delegate
        options.delegateQueue.async { delegate.preflight(self, didReceiveSample: sample) }
    }

    fileprivate func warnings(_ current: Set<CallQualityWarning>, previous: Set<CallQualityWarning>) {
        let now = client.now
        var new = current.subtracting(previous)
        // The generated signal is no microphone: its level says nothing.
        if options.audioDevice == nil { new = new.filter { !$0.isAudioLevelWarning } }
        let raised = shared.withLock { $0.recorder.raised(new, at: now) }
        let delegate = self.delegate
        for warning in raised { options.delegateQueue.async { delegate.preflight(self, didRaiseWarning: warning) } }
    }

    fileprivate func ended(_ error: VoiceError?) {
        let now = client.now
        let outcome = shared.withLock { s -> Result<PreflightReport, VoiceError>? in
            guard s.state == .connecting || s.state == .connected else { return nil }
            if let sampling = s.sampling, let ending = s.ending {
                // The timers are the loop's: cancelled there.
                client.onLoop {
                    sampling.cancel()
                    ending.cancel()
                }
            }
            s.call = nil
            if s.stopping {
                s.state = .failed
                return .failure(VoiceError(.callCancelled, failureReason: "the preflight test was stopped"))
            }
            if let error {
                s.state = .failed
                return .failure(error)
            }
            guard s.state == .connected else {
                s.state = .failed
                return .failure(VoiceError(.connectionError, failureReason: "the test call ended before it connected"))
            }
            guard s.hangingUp else {
                s.state = .failed
                let lasted = s.latestSample.map { " after \(Int($0.elapsed / .seconds(1))) s" } ?? ""
                return .failure(
                    VoiceError(.connectionError, failureReason: "the far end hung up\(lasted), before the test's \(self.options.duration)"))
            }
            let report = s.recorder.report(callSid: s.callSid, stats: s.lastStats, at: now)
            s.report = report
            s.state = .completed
            return .success(report)
        }
        guard let outcome else { return }
        let delegate = self.delegate
        switch outcome {
        case .success(let report): options.delegateQueue.async { delegate.preflight(self, didCompleteWith: report) }
        case .failure(let error): options.delegateQueue.async { delegate.preflight(self, didFailWithError: error) }
        }
        callDelegate.test = nil
    }

    private func fail(_ error: VoiceError) {
        shared.withLock { $0.state = .failed }
        callDelegate.test = nil
        let delegate = self.delegate
        options.delegateQueue.async { delegate.preflight(self, didFailWithError: error) }
    }
}

/// The test call's delegate: its callbacks, on a queue of its own, go to the test. It holds
/// the test while the call runs (the app need not keep it).
private final class PreflightCallDelegate: CallDelegate, @unchecked Sendable {
    // @unchecked: `test` is touched on `queue` only, but for `start`, before the call exists.
    let queue = DispatchQueue(label: "voice.preflight")
    var test: PreflightTest?

    func callDidConnect(_ call: Call) { test?.connected(call) }
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { test?.ended(error) }
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) { test?.ended(error) }
    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<CallQualityWarning>, previousWarnings: Set<CallQualityWarning>) {
        test?.warnings(currentWarnings, previous: previousWarnings)
    }
}
