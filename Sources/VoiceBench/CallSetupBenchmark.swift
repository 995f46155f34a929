import VoiceTestKit
import VoiceEmbedded
import Dispatch
import Foundation
import Histogram
import Logging
import VoiceCore
import VoiceMedia
import VoiceRTP
import VoiceService
import VoiceTestAudio
import VoiceSIPAgent
import VoiceSupport

/// `call_setup_ms_p50` / `_p95`: from `connect()` to `callDidConnect` on loopback over UDP, one
/// call at a time, to a client that accepts every invite at once. Both clients use default
/// settings (Opus) but for ``security``, and buffer devices, as a server would; each call is
/// hung up and its end awaited before the next.
///
/// With SDES (`call_setup_ms_p50`) the keys are in the SDP and the call connects once the answer
/// is in; with ICE + DTLS-SRTP (`call_setup_ms_p50_dtls`) it connects once ICE selected a pair
/// and the handshake keyed SRTP. The DTLS run also reads, from the caller's stream after each
/// call connects, how long its media path took: `ice_connect_ms_p50` (the stream's start to a
/// selected pair) and `dtls_handshake_ms_p50` (from then to the keys).
struct CallSetupBenchmark {
    var calls = 200
    /// Calls placed first and not counted (caches, allocator, first sockets).
    var warmUp = 10
    /// Both clients' media security.
    var security = MediaSecurity.sdes
    /// The caller's ICE servers and policy (a relay-only caller through a TURN server: each
    /// call then allocates its relay before the INVITE, and its media path is the relayed pair).
    var callerICE = ICEOptions()

    struct Result {
        var p50Milliseconds: Double
        var p95Milliseconds: Double
        var maxMilliseconds: Double
        var failures: Int
        /// The caller's media path (DTLS only): the stream's start to a selected pair, and from
        /// then to the keys; medians over the calls that reported them (nil when none did).
        var iceConnectP50Milliseconds: Double?
        var dtlsHandshakeP50Milliseconds: Double?
        var pathTimings = 0
    }

    func run() throws -> Result {
        var quiet = Logger(label: "voice-bench")
        quiet.logLevel = .error
        let trace = ProcessInfo.processInfo.environment["VOICE_BENCH_TRACE"] != nil
        // The callee trusts the caller's address as a server trusts the proxy its calls come
        // through (the README's advice): hundreds of calls a second from one untrusted address
        // would meet the per-source flood limits, which is what those limits are for.
        var calleeConfiguration = VoiceClientConfiguration(
            identity: "callee", domain: "127.0.0.1", registers: false, logger: trace ? Logger(label: "callee") { TimedLogHandler(label: $0) } : quiet)
        calleeConfiguration.incomingCallPolicy = SIPIncomingCallPolicy(trustedSources: ["127.0.0.1"])
        calleeConfiguration.mediaSecurity = security
        let callee = try VoiceClient(configuration: calleeConfiguration)
        var callerConfiguration = VoiceClientConfiguration(
            identity: "caller", domain: "127.0.0.1", registers: false, logger: trace ? Logger(label: "caller") { TimedLogHandler(label: $0) } : quiet)
        callerConfiguration.mediaSecurity = security
        callerConfiguration.iceOptions = callerICE
        let caller = try VoiceClient(configuration: callerConfiguration)
        defer {
            caller.shutdown()
            callee.shutdown()
        }
        let tone = TestSignals.multiTone([(440, 8_000)], seconds: 1)
        let answerer = SetupAnswerer(device: { BufferAudioDevice(captureSamples: tone, loop: true) })
        answerer.listen(on: callee, as: "callee")

        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var failures = 0
        var iceConnect: [Double] = []
        var dtlsHandshake: [Double] = []
        let clock = MonotonicMediaClock()
        for i in 0..<(warmUp + calls) {
            let delegate = SetupCallDelegate(clock: clock)
            // The app's own work (its token, its device) is done before it calls connect().
            let options = ConnectOptions(accessToken: BenchTokens.token("caller")) { builder in
                builder.params = ["To": "sip:callee@127.0.0.1:\(callee.localEndpoint.port)"]
                builder.delegateQueue = delegate.queue
                builder.audioDevice = BufferAudioDevice(captureSamples: tone, loop: true)
            }
            let started = clock.now()
            if trace { print(String(format: "%.3f", Double(started.nanoseconds) / 1e6) + " connect()") }
            let call = caller.connect(options: options, delegate: delegate)
            let outcome = delegate.waitForOutcome(timeout: 10)
            if case .connected(let at)? = outcome {
                if i >= warmUp {
                    _ = histogram.record(UInt64(max(0, (at - started).nanoseconds / 1_000)))
                    if security == .dtls, let path = Self.pathTimings(of: call) {
                        iceConnect.append(path.ice)
                        dtlsHandshake.append(path.dtls)
                    }
                }
            } else if i >= warmUp {
                failures += 1
            }
            call.disconnect()
            delegate.waitForEnd(timeout: 10)
        }
        func ms(_ us: UInt64) -> Double { Double(us) / 1_000 }
        func median(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.sorted()[values.count / 2] }
        return Result(
            p50Milliseconds: ms(histogram.valueAtPercentile(50)), p95Milliseconds: ms(histogram.valueAtPercentile(95)),
            maxMilliseconds: ms(histogram.max), failures: failures, iceConnectP50Milliseconds: median(iceConnect),
            dtlsHandshakeP50Milliseconds: median(dtlsHandshake), pathTimings: iceConnect.count)
    }

    /// The caller's media path timings, once its stream's published stats have them (they are
    /// published every 200 ms, so this waits up to a second after the call connected).
    private static func pathTimings(of call: Call) -> (ice: Double, dtls: Double)? {
        var timings: (ice: Double, dtls: Double)?
        _ = PollingWait.until(timeout: 1, every: 0.02) {
            let stats = Locked<AudioStreamStats?>(nil)
            let read = DispatchSemaphore(value: 0)
            call.streamStats { s in
                stats.withLock { $0 = s }
                read.signal()
            }
            _ = read.wait(timeout: .now() + 1)
            // The timings are in once the keys are (a handshake done within one media tick reads 0).
            guard let s = stats.withLock({ $0 }), s.dtlsState == .connected else { return false }
            timings = (s.iceConnectMilliseconds, s.dtlsHandshakeMilliseconds)
            return true
        }
        return timings
    }
}

/// The benchmark's access tokens, so that calls parse and present one as an app using tokens
/// does (the clients accept any signature; a plain SIP peer ignores them).
enum BenchTokens {
    static let issuer = AccessTokenIssuer(
        accountSid: "AC00000000000000000000000000000000", apiKeySid: "SK00000000000000000000000000000000",
        apiKeySecret: "voice-bench")

    static func token(_ identity: String) -> String { issuer.makeToken(identity: identity) }
}

/// Accepts every invite at once, each call with a device of its own.
final class SetupAnswerer: NotificationDelegate, Sendable {
    let queue = DispatchQueue(label: "voice-bench-callee")
    private let device: @Sendable () -> any AudioDevice
    private let delegate = SetupCalleeDelegate()

    init(device: @escaping @Sendable () -> any AudioDevice) { self.device = device }

    func callInviteReceived(_ callInvite: CallInvite) {
        _ = callInvite.accept(
            options: AcceptOptions(callInvite: callInvite) { builder in
                builder.delegateQueue = self.delegate.queue
                builder.audioDevice = self.device()
            },
            delegate: delegate)
    }

    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}

    /// Registers with `client` as `identity` (binding only, without a registrar) and waits for it.
    func listen(on client: VoiceClient, as identity: String) {
        let registered = DispatchSemaphore(value: 0)
        client.register(accessToken: BenchTokens.token(identity), notificationDelegate: self, delegateQueue: queue) { _ in
            registered.signal()
        }
        _ = registered.wait(timeout: .now() + 5)
    }
}

final class SetupCalleeDelegate: CallDelegate, Sendable {
    let queue = DispatchQueue(label: "voice-bench-callee-calls")
    func callDidConnect(_ call: Call) {}
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) {}
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {}
}

/// Stamps `callDidConnect` with the monotonic clock, on the delegate queue as it is delivered.
final class SetupCallDelegate: CallDelegate, Sendable {
    enum Outcome: Sendable {
        case connected(MediaTime)
        case failed
    }

    let queue = DispatchQueue(label: "voice-bench-setup")
    private let clock: MonotonicMediaClock
    private let outcome = Locked<Outcome?>(nil)
    private let ended = Locked(false)
    private let outcomeSignal = DispatchSemaphore(value: 0)
    private let endSignal = DispatchSemaphore(value: 0)

    init(clock: MonotonicMediaClock) { self.clock = clock }

    func waitForOutcome(timeout: TimeInterval) -> Outcome? {
        _ = outcomeSignal.wait(timeout: .now() + timeout)
        return outcome.withLock { $0 }
    }

    func waitForEnd(timeout: TimeInterval) {
        _ = endSignal.wait(timeout: .now() + timeout)
    }

    func callDidConnect(_ call: Call) {
        let at = clock.now()
        if ProcessInfo.processInfo.environment["VOICE_BENCH_TRACE"] != nil {
            print(String(format: "%.3f", Double(at.nanoseconds) / 1e6) + " callDidConnect")
        }
        outcome.withLock { $0 = .connected(at) }
        outcomeSignal.signal()
    }

    func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
        print("setup: a call failed: \(error)".escapingControlCharacters)
        outcome.withLock { $0 = .failed }
        outcomeSignal.signal()
        end()
    }

    func call(_ call: Call, didDisconnectWithError error: VoiceError?) { end() }

    private func end() {
        let first = ended.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { endSignal.signal() }
    }
}
