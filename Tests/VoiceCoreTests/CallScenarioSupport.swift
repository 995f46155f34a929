import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import VoiceMedia
import VoiceService
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// What a delegate saw, in order.
enum SeenCallback: Equatable, CustomStringConvertible {
    case ringing, connected, failed(VoiceError.Code), disconnected(VoiceError.Code?), reconnecting(VoiceError.Code), reconnected
    case warnings(Set<CallQualityWarning>)
    case audioInterrupted, audioResumed

    var description: String {
        switch self {
        case .ringing: "ringing"
        case .connected: "connected"
        case .failed(let c): "failed(\(c.rawValue))"
        case .disconnected(let c): "disconnected(\(c.map { "\($0.rawValue)" } ?? "nil"))"
        case .reconnecting(let c): "reconnecting(\(c.rawValue))"
        case .reconnected: "reconnected"
        case .warnings(let w): "warnings(\(w))"
        case .audioInterrupted: "audioInterrupted"
        case .audioResumed: "audioResumed"
        }
    }
}

/// Records callbacks on its own serial queue, and the states seen at each callback.
final class RecordingCallDelegate: CallDelegate, @unchecked Sendable {
    // @unchecked: the lists are behind a lock.
    let queue = DispatchQueue(label: "test.call.delegate")

    init() { VirtualCallWorld.current?.watch(queue) }
    private let seen = Locked<[SeenCallback]>([])
    private let states = Locked<[CallState]>([])
    private let times = Locked<[Date]>([])
    /// The last interruption announced, and whether ``Call/isAudioInterrupted`` agreed at each announcement.
    let lastInterruption = Locked<CallAudioInterruption?>(nil)
    let interruptionStateAgreed = Locked<[Bool]>([])
    let onConnect = Locked<(@Sendable (Call) -> Void)?>(nil)
    /// The error the call failed or ended with.
    let endError = Locked<VoiceError?>(nil)
    /// Runs at the start of `callDidStartRinging`, before the state is read.
    let onRinging = Locked<(@Sendable (Call) -> Void)?>(nil)

    var callbacks: [SeenCallback] { seen.withLock { $0 }.filter { if case .warnings = $0 { false } else { true } } }
    var allCallbacks: [SeenCallback] { seen.withLock { $0 } }
    var statesAtCallbacks: [CallState] { states.withLock { $0 } }

    private func record(_ callback: SeenCallback, _ call: Call) {
        dispatchPrecondition(condition: .onQueue(queue))
        seen.withLock { $0.append(callback) }
        states.withLock { $0.append(call.state) }
        times.withLock { $0.append(Date()) }
    }

    /// When the first callback equal to `callback` arrived.
    func time(of callback: SeenCallback, after start: Date = .distantPast) -> Date? {
        let all = seen.withLock { $0 }
        let stamps = times.withLock { $0 }
        return zip(all, stamps).first { $0.0 == callback && $0.1 >= start }?.1
    }

    func call(_ call: Call, audioInterruptionDidBegin interruption: CallAudioInterruption) {
        lastInterruption.withLock { $0 = interruption }
        // The property is the state now: the other direction may have gone too since this
        // interruption began, which updates it without a second callback.
        let now = call.audioInterruption
        let agrees = now.map { ($0.capture || !interruption.capture) && ($0.render || !interruption.render) } ?? false
        interruptionStateAgreed.withLock { $0.append(agrees) }
        record(.audioInterrupted, call)
    }
    /// When `callDidEstablishMedia` arrived, and the state and details then.
    let mediaEstablished = Locked<(at: Date, state: CallState, details: CallDetails)?>(nil)
    func callDidEstablishMedia(_ call: Call) {
        mediaEstablished.withLock { $0 = (Date(), call.state, call.details) }
    }
    /// The digits the far end pressed, as delivered.
    let digits = Locked<[CallDigit]>([])
    func call(_ call: Call, didReceiveDigit digit: CallDigit) {
        dispatchPrecondition(condition: .onQueue(queue))
        digits.withLock { $0.append(digit) }
    }
    /// The delivered digits as one string.
    var digitString: String { String(digits.withLock { $0 }.map(\.digit)) }
    /// Called with each Sinch call-quality event, on the delegate queue.
    let onQualityEvent = Locked<(@Sendable (CallQualityWarningEvent) -> Void)?>(nil)
    func callDidEmitCallQualityEvent(_ call: Call, event: CallQualityWarningEvent) {
        onQualityEvent.withLock { $0 }?(event)
    }
    func callAudioInterruptionDidEnd(_ call: Call) {
        interruptionStateAgreed.withLock { $0.append(!call.isAudioInterrupted) }
        record(.audioResumed, call)
    }

    func callDidStartRinging(_ call: Call) {
        onRinging.withLock { $0 }?(call)
        record(.ringing, call)
    }
    /// The call `callDidConnect` announced.
    let connectedCall = Locked<Call?>(nil)
    func callDidConnect(_ call: Call) {
        connectedCall.withLock { $0 = call }
        record(.connected, call)
        onConnect.withLock { $0 }?(call)
    }
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
        endError.withLock { $0 = error }
        record(.failed(error.code), call)
    }
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {
        endError.withLock { $0 = error }
        record(.disconnected(error?.code), call)
    }
    func call(_ call: Call, isReconnectingWithError error: VoiceError) { record(.reconnecting(error.code), call) }
    func callDidReconnect(_ call: Call) { record(.reconnected, call) }
    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<CallQualityWarning>, previousWarnings: Set<CallQualityWarning>) {
        record(.warnings(currentWarnings), call)
    }

    /// Waits until `count` callbacks (warnings excluded) arrived.
    @discardableResult
    func wait(for count: Int, timeout: TimeInterval = 10) -> [SeenCallback] {
        _ = PollingWait.until(timeout: timeout) { self.callbacks.count >= count }
        return callbacks
    }

    /// Waits until the last callback is a final one (failed or disconnected).
    @discardableResult
    func waitForEnd(timeout: TimeInterval = 10) -> [SeenCallback] {
        _ = PollingWait.until(timeout: timeout) {
            self.callbacks.contains { if case .failed = $0 { true } else if case .disconnected = $0 { true } else { false } }
        }
        return callbacks
    }
}

/// A notification delegate whose reaction to each invite is set by the test.
final class ScriptedNotificationDelegate: NotificationDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "test.notification.delegate")

    init() { VirtualCallWorld.current?.watch(queue) }
    let invites = Locked<[CallInvite]>([])
    let cancelled = Locked<[(CancelledCallInvite, VoiceError)]>([])
    let onInvite = Locked<(@Sendable (CallInvite) -> Void)?>(nil)

    func callInviteReceived(_ callInvite: CallInvite) {
        invites.withLock { $0.append(callInvite) }
        onInvite.withLock { $0 }?(callInvite)
    }

    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {
        cancelled.withLock { $0.append((cancelledCallInvite, error)) }
    }

    /// Accepts every invite with `delegate` (on its queue) and whatever else `configure` sets;
    /// the box holds the last call.
    @discardableResult
    func acceptEach(
        with delegate: RecordingCallDelegate, configure: @escaping @Sendable (AcceptOptionsBuilder) -> Void = { _ in }
    ) -> LockedBox<Call?> {
        let accepted = LockedBox<Call?>(nil)
        onInvite.withLock {
            $0 = { invite in
                accepted.value = invite.accept(
                    options: AcceptOptions(callInvite: invite) { builder in
                        builder.delegateQueue = delegate.queue
                        configure(builder)
                    },
                    delegate: delegate)
            }
        }
        return accepted
    }

    func waitForInvite(timeout: TimeInterval = 10) -> CallInvite? {
        _ = PollingWait.until(timeout: timeout) { !self.invites.withLock { $0 }.isEmpty }
        return invites.withLock { $0.first }
    }
}

/// Access tokens for the tests, from the server-side issuer (VoiceService).
enum CallTestTokens {
    static let issuer = AccessTokenIssuer(accountSid: "AC" + String(repeating: "0", count: 32), apiKeySid: "SKtest", apiKeySecret: "secret")
    static func token(_ identity: String, lifetime: TimeInterval = 600, now: Date = Date()) -> String {
        issuer.makeToken(identity: identity, lifetime: lifetime, now: now)
    }
}

/// A client with in-memory audio and recorded insights: on loopback in real time, or, in a
/// ``VirtualCallWorld``, on its in-memory networks in virtual time (a host of its own, port 5060).
struct TestVoiceClient {
    let client: VoiceClient
    let device: BufferAudioDevice
    let insights: RecordingInsightsPublisher
    /// The world it runs in, nil for real time.
    let world: VirtualCallWorld?

    init(
        _ identity: String, signal: [Int16] = [], transport: SIPTransportProtocol = .udp, world: VirtualCallWorld? = nil,
        configure: (inout VoiceClientConfiguration) -> Void = { _ in }
    ) throws {
        var logger = Logger(label: "test.voice.\(identity)")
        logger.logLevel = ProcessInfo.processInfo.environment["SIP_TRACE"] == nil ? .warning : .trace
        insights = RecordingInsightsPublisher()
        self.world = world
        guard let world else {
            device = BufferAudioDevice(captureSamples: signal, loop: true)
            var configuration = VoiceClientConfiguration(
                identity: identity, domain: "127.0.0.1", transport: transport, registers: false,
                logger: logger)
            configuration.publishInsights(to: insights)
            configure(&configuration)
            client = try VoiceClient(configuration: configuration, audioDevice: device)
            return
        }
        device = BufferAudioDevice(captureSamples: signal, loop: true, pacing: world.pacing)
        let host = world.makeHost()
        var configuration = VoiceClientConfiguration(
            identity: identity, domain: host, transport: transport, listenHost: host, listenPort: 5060, registers: false,
            logger: logger)
        configuration.publishInsights(to: insights)
        configuration.mediaEngine = world.engine
        configure(&configuration)
        client = try VoiceClient(
            configuration: configuration, audioDevice: device, transport: world.sipNetwork.transportFactory, clock: world.clock,
            mediaPorts: world.mediaPorts(), runsMediaJobsInline: true)
    }

    /// `sip:identity@host:port` of this client.
    var address: String { "sip:\(client.configuration.identity)@\(client.localEndpoint.host):\(client.localEndpoint.port)" }

    /// Registers (or only binds, per the configuration) with a scripted notification delegate;
    /// `result` gets the completion's error.
    @discardableResult
    func listen(
        with delegate: ScriptedNotificationDelegate = ScriptedNotificationDelegate(),
        callMessageDelegate: CallMessageDelegate? = nil, result: Locked<VoiceError?>? = nil
    ) -> ScriptedNotificationDelegate {
        let done = Locked(false)
        client.register(accessToken: CallTestTokens.token(client.configuration.identity), notificationDelegate: delegate,
                        delegateQueue: delegate.queue, callMessageDelegate: callMessageDelegate) { error in
            result?.withLock { $0 = error }
            done.withLock { $0 = true }
        }
        _ = PollingWait.until(timeout: 10) { done.withLock { $0 } }
        return delegate
    }

    /// Calls `callee`, who accepts at once; returns our call, its delegate, and the callee's
    /// call once it is accepted.
    func call(acceptedBy callee: TestVoiceClient) -> (caller: Call, callerDelegate: RecordingCallDelegate, callee: LockedBox<Call?>) {
        let calleeDelegate = RecordingCallDelegate()
        let accepted = LockedBox<Call?>(nil)
        let notifications = callee.listen()
        notifications.onInvite.withLock {
            $0 = { invite in
                accepted.value = invite.accept(
                    options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let delegate = RecordingCallDelegate()
        return (connect(to: callee.address, delegate: delegate), delegate, accepted)
    }

    func connect(to destination: String, delegate: RecordingCallDelegate, params: [String: String] = [:], token: String? = nil) -> Call {
        client.connect(
            options: ConnectOptions(accessToken: token ?? CallTestTokens.token(client.configuration.identity)) { builder in
                builder.params = params.merging(["To": destination]) { a, _ in a }
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
    }
}

/// Collects call-quality events from any thread.
final class CallQualityEventRecorder: Sendable {
    private let events = Locked<[CallQualityWarningEvent]>([])
    func append(_ event: CallQualityWarningEvent) { events.withLock { $0.append(event) } }
    var all: [CallQualityWarningEvent] { events.withLock { $0 } }
}
