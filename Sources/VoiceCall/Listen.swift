import VoiceEmbedded
import ArgumentParser
import Dispatch
import Foundation
import Prometheus
import VoiceCore
import VoiceService
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport

/// `voicecall listen`: registers (or just binds) and answers incoming calls.
struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Registers (or only binds) and answers incoming calls.")

    @OptionGroup var client: ClientOptions
    @OptionGroup var audio: AudioOptions
    @Flag(help: "Answer every call at once; otherwise ask on the terminal.") var autoAnswer = false
    @Option(help: "With --auto-answer: let the call ring this many seconds first.") var answerAfter = 0.0
    @Flag(help: "Do not send REGISTER; only listen on the bound address.") var noRegister = false
    @Option(help: "Seconds to keep listening (0: until interrupted).") var duration = 0
    @Flag(help: "Exit once the first call has ended (or --duration ran out).") var once = false
    @Option(help: "Accept calls only from this address (the proxy's); repeat for several.") var trustedSource: [String] = []
    @Option(help: "Accept calls only over TLS from a peer whose verified certificate names this host (the proxy's); repeat for several.")
    var trustedTLSName: [String] = []
    @Option(help: "Ask callers for a password: user:password, Digest-challenged; repeat for several.") var caller: [String] = []
    @Option(help: "Serve Prometheus metrics at http://0.0.0.0:<port>/metrics.") var metricsPort: Int?

    func run() throws {
        var configuration = try client.makeConfiguration()
        configuration.registers = !noRegister
        let callers = try caller.map { entry -> SIPAuthCredentials in
            guard let colon = entry.firstIndex(of: ":"), colon != entry.startIndex else {
                throw ValidationError("--caller must be user:password")
            }
            return SIPAuthCredentials(username: String(entry[..<colon]), password: String(entry[entry.index(after: colon)...]))
        }
        let sources: [String], names: [String]
        do {
            sources = try trustedSource.map { address throws(VoiceError) in try VoiceServerSettings.TrustedAddress(address).description }
            names = try trustedTLSName.map { name throws(VoiceError) in try VoiceServerSettings.TLSName(name).description }
        } catch {
            throw ValidationError((error.failureReason ?? "\(error)").escapingControlCharacters)
        }
        configuration.incomingCallPolicy = SIPIncomingCallPolicy(
            trustedSources: sources, trustedTLSNames: names, requiredCredentials: callers, realm: configuration.domain)
        var metrics: MetricsEndpoint?
        if let metricsPort {
            guard (0...65_535).contains(metricsPort) else { throw ValidationError("--metrics-port takes 0–65535") }
            let registry = PrometheusCollectorRegistry()
            configuration.metricsFactory = PrometheusMetricsFactory(registry: registry)
            do {
                metrics = try MetricsEndpoint(registry: registry, port: metricsPort)
            } catch {
                print("cannot serve metrics on port \(metricsPort): \(error)")
                throw ExitCode(1)
            }
            print("metrics on http://0.0.0.0:\(metrics?.port ?? metricsPort)/metrics")
        }
        defer { metrics?.close() }
        let device = try audio.makeDevice()
        let voice = try VoiceClient(configuration: configuration, audioDevice: device)
        defer { voice.shutdown() }
        let delegate = PrintingCallDelegate(name: "call", recordBoth: audio.recordBoth)
        let name = "\(configuration.identity)@\(configuration.domain)"
        guard (0...600).contains(answerAfter) else { throw ValidationError("--answer-after takes 0–600 seconds") }
        let listener = Listener(
            callDelegate: delegate, autoAnswer: autoAnswer, answerAfter: answerAfter, processing: audio.audioProcessing(for: device))
        let interrupt = Interrupt()
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<VoiceError?>(nil)
        voice.register(accessToken: client.token, notificationDelegate: listener, delegateQueue: delegate.queue) { error in
            if let error {
                print("registration failed: \(error.code.rawValue) \(error)".escapingControlCharacters)
                failure.withLock { $0 = error }
                done.signal()
                return
            }
            voice.getContactAddress(queue: delegate.queue) { contact in
                print("listening on \(voice.localEndpoint) as \(name), contact \(contact)".escapingControlCharacters)
                done.signal()
            }
        }
        done.wait()
        if failure.withLock({ $0 }) != nil { throw ExitCode(1) }
        // A stats line a second for each call in progress, until the time is up, the one call
        // ended (--once) or a signal came.
        let deadline = duration > 0 ? Date().addingTimeInterval(TimeInterval(duration)) : Date.distantFuture
        var second = 0
        while Date() < deadline {
            if interrupt.wait(seconds: min(1, deadline.timeIntervalSinceNow), until: { once && delegate.hasEnded }) { break }
            if once && delegate.hasEnded { break }
            second += 1
            let now = second
            for call in delegate.queue.sync(execute: { listener.liveCalls }) {
                let done = DispatchSemaphore(value: 0)
                call.getStats { report in
                    if let report { print(CallStatsLine.line("call", report, second: now)) }
                    done.signal()
                }
                _ = done.wait(timeout: .now() + 1)
            }
        }
        // Interrupted or done: hang up what still runs and take the registration back.
        delegate.queue.sync { listener.hangUpAll() }
        if configuration.registers {
            let unregistered = DispatchSemaphore(value: 0)
            voice.unregister { _ in unregistered.signal() }
            _ = unregistered.wait(timeout: .now() + 5)
        }
        _ = PollingWait.until(timeout: 5) { delegate.queue.sync { !listener.hasLiveCalls } }
        delegate.waitForRecording()
    }
}

/// Answers invites automatically or after asking on stdin.
final class Listener: NotificationDelegate, @unchecked Sendable {
    // @unchecked: touched on the call delegate's queue only.
    let callDelegate: PrintingCallDelegate
    let autoAnswer: Bool
    let answerAfter: Double
    /// The voice processing accepted calls ask for; nil keeps the device's.
    let processing: AudioProcessingOptions?
    private var calls: [Call] = []

    init(callDelegate: PrintingCallDelegate, autoAnswer: Bool, answerAfter: Double = 0, processing: AudioProcessingOptions? = nil) {
        self.callDelegate = callDelegate
        self.autoAnswer = autoAnswer
        self.answerAfter = answerAfter
        self.processing = processing
    }

    func callInviteReceived(_ callInvite: CallInvite) {
        print("incoming call from \(callInvite.from ?? "?") (\(callInvite.callSid)) \(callInvite.customParameters)".escapingControlCharacters)
        var answer = autoAnswer
        if !answer {
            print("answer? [y/N] ", terminator: "")
            answer = (readLine() ?? "").lowercased().hasPrefix("y")
        }
        guard answer else {
            callInvite.reject()
            return
        }
        guard answerAfter == 0 else {
            callDelegate.queue.asyncAfter(deadline: .now() + answerAfter) { self.accept(callInvite) }
            return
        }
        accept(callInvite)
    }

    private func accept(_ callInvite: CallInvite) {
        calls.removeAll { $0.state == .disconnected }  // a long-running listener keeps only live calls
        calls.append(callInvite.accept(
            options: AcceptOptions(callInvite: callInvite) {
                $0.delegateQueue = self.callDelegate.queue
                $0.audioProcessing = self.processing
            },
            delegate: callDelegate))
    }

    /// Disconnects every call (on the delegate queue).
    func hangUpAll() {
        for call in calls where call.state != .disconnected { call.disconnect() }
    }

    /// Whether a call has not ended yet (on the delegate queue).
    var hasLiveCalls: Bool { calls.contains { $0.state != .disconnected } }

    /// The calls answered that have not ended (on the delegate queue).
    var liveCalls: [Call] { calls.filter { $0.state != .disconnected } }

    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {
        print("call \(cancelledCallInvite.callSid) cancelled: \(error)".escapingControlCharacters)
    }
}
