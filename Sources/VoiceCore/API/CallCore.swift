import Dispatch
import Foundation
import Logging
import NIOCore
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport

/// The engine room of one ``Call``: its state machine, SIP call and media, run on the client's
/// signaling event loop. Every method runs on ``eventLoop``.
///
/// Media is started, updated and stopped off the loop, on the call's own serial queue
/// (``mediaQueue``): binding sockets, the media engine's hand-over and joining device threads
/// would otherwise stall signaling for every call on the loop. Each job reports back to the
/// loop as an event (``mediaStarted(_:)``, ``mediaFailed(_:_:)``, ``mediaStopped()``): the call
/// connects once its media runs, and announces its end once its media has stopped.
final class CallCore: @unchecked Sendable {
    // @unchecked: all mutable state is touched on `eventLoop` only.

    let client: VoiceClient
    let call: Call
    let role: CallStateRole
    let delegateQueue: DispatchQueue
    let preferredCodecs: [AudioCodec]
    let enableDSCP: Bool
    let audioDevice: (any AudioDevice)?
    /// The device the call's audio runs on (its own, else the client's; another after a switch).
    var currentAudioDevice: (any AudioDevice)?
    /// The processing the call asked its device for (options or ``Call/audioProcessing``), nil
    /// when it keeps what the device runs.
    var requestedAudioProcessing: AudioProcessingOptions?
    var eventLoop: EventLoop { client.agent.eventLoop }
    let delegate: DelegateBox<CallDelegate>
    let messageDelegate: DelegateBox<CallMessageDelegate>?
    var machine: CallStateMachine
    var handle: SIPCallHandle?
    var media: (any CallMedia)?
    var negotiated: SDPNegotiatedMedia?
    private var stateTimers: [CallStateTimer: Scheduled<Void>] = [:]
    var ticker: RepeatedTask?
    var quality = CallQualityWarningDetector()
    /// The Sinch call-quality events, and the five-a-second level sampling they need.
    var qualityEvents: CallQualityEventDetector
    var levelTicker: RepeatedTask?
    /// The ringback tone while the callee rings.
    var ringback: ProgressTonePlayer?
    /// Audio has been seen flowing both ways (``CallDetails/mediaEstablishedAt``).
    var mediaEstablished = false
    var sampler = CallQualitySampler()
    /// When the far end answered our INVITE (a preflight's signaling time).
    var answeredAt: MediaTime?
    /// The one-second stats samples for Insights, posted ten at a time.
    var metricsBatch = InsightsMetricsBatch()
    var lastPacketsReceived: UInt64 = 0
    var lastMediaPacketAt: MediaTime?
    /// Media liveness from RTP and the peer's RTCP.
    var liveness = CallMediaLiveness()
    var messageLimiter = CallMessageRateLimiter()
    var held = false
    /// The last transfer progress reported (each is reported once).
    var lastTransferProgress: CallTransferProgress?
    /// For a call placed for a transfer we accepted: the call whose transferor hears how it goes.
    var transferReferrer: CallCore?
    /// The last machine state sent to the delegate queue for ``Call/state``.
    private var publishedState = CallState.connecting
    var mediaTracker = InsightsMediaConnectionTracker()
    var lastSignalingState: InsightsSignalingState?
    /// The full errors behind the machine's compact ones, so details and SIP status survive.
    private var errors: [Int: VoiceError] = [:]
    /// The wait for the peer's re-INVITE after a connection the peer opened was lost.
    private var peerReconnectWait: Scheduled<Void>?
    /// When an offer/answer exchange (a re-INVITE either way) last completed.
    private var lastOfferAnswerAt: MediaTime?
    /// Where this call's media jobs run, one at a time and in order.
    let mediaQueue: DispatchQueue
    /// The media's lifecycle: starting, running, stopping (``CallMediaLifecycle``).
    var mediaLifecycle = CallMediaLifecycle()
    /// The answer's negotiation, for media started on early media.
    var pendingAnswer: SDPNegotiatedMedia?
    /// Why the media did not start, for the call's error.
    var mediaFailure: String?
    /// Callbacks held while the media stops.
    var callbacksAwaitingMediaStop: [CallStateCallback] = []
    /// Whether the device's capture and render are interrupted now, and the latest error.
    var captureInterrupted = false
    var renderInterrupted = false
    var interruptionError: AudioDeviceError?
    /// The interruption as last announced to the app.
    var reportedInterruption: CallAudioInterruption?
    /// `callDidConnect` has been delivered: interruptions may be announced.
    var hasConnected = false
    /// The digits the far end pressed, once per press (``ReceivedDigits``).
    var receivedDigits = ReceivedDigits()
    /// When the call was placed or accepted, for the setup-time metric.
    let startedAt: MediaTime
    /// The media figures already added to the client's metrics.
    var metricsCursor = CallMetricsCursor()

    init(
        client: VoiceClient, call: Call, role: CallStateRole, delegate: CallDelegate, delegateQueue: DispatchQueue,
        messageDelegate: CallMessageDelegate?, preferredCodecs: [AudioCodec], enableDSCP: Bool, audioDevice: (any AudioDevice)?,
        audioProcessing: AudioProcessingOptions? = nil
    ) {
        self.client = client
        self.call = call
        self.role = role
        self.delegate = DelegateBox(delegate)
        self.delegateQueue = delegateQueue
        self.messageDelegate = messageDelegate.map { DelegateBox($0) }
        self.preferredCodecs = preferredCodecs
        self.enableDSCP = enableDSCP
        self.audioDevice = audioDevice
        self.currentAudioDevice = audioDevice ?? client.audioDevice
        self.requestedAudioProcessing = audioProcessing
        let initial = audioProcessing ?? currentAudioDevice?.defaultAudioProcessing ?? .none
        call.update { $0.audioProcessing = initial }
        var machineConfiguration = client.configuration.reconnection.machine
        machineConfiguration.ringTimeout = client.configuration.ringTimeout.map(MediaTime.init)
        self.machine = CallStateMachine(role: role, configuration: machineConfiguration, now: client.now)
        self.startedAt = client.now
        self.qualityEvents = CallQualityEventDetector(configuration: client.configuration.qualityEvents)
        self.mediaQueue = DispatchQueue(label: "voice-media-call", target: client.mediaControlQueue)
        call.feedbackPublisher.withLock { $0 = client.insights }
    }

    var now: MediaTime { client.now }
    var sid: String { call.sid }

    // MARK: - Feeding the machine

    func run(_ outputs: [CallStateOutput]) {
        for output in outputs {
            switch output {
            case .callback(let callback):
                if mediaLifecycle.isStopping { callbacksAwaitingMediaStop.append(callback) } else { deliver(callback) }
            case .insights(let event):
                if event == .acceptedByRemote, answeredAt == nil { answeredAt = now }
                publish(CallInsights.event(for: event, callSid: sid) { self.voiceError($0) })
            case .action(.hangUpSignaling):
                if let handle { client.agent.hangUp(handle) }
            case .action(.releaseMedia):
                releaseMedia()
            case .action(.reInviteAfterSignalingReconnect):
                if let handle { client.agent.refresh(handle) }
            case .startTimer(let timer, let deadline):
                stateTimers[timer]?.cancel()
                let delay = max(0, (deadline - now).nanoseconds)
                stateTimers[timer] = eventLoop.scheduleTask(in: .nanoseconds(delay)) {
                    self.stateTimers[timer] = nil
                    let outputs = self.machine.timerFired(timer, now: self.now)
                    // Media that did not come back in time failed (pc/ICE `failed`) before it closes.
                    if timer == .mediaReconnect, self.machine.isDisconnected { self.trackMedia(.failed) }
                    self.run(outputs)
                }
            case .cancelTimer(let timer):
                stateTimers[timer]?.cancel()
                stateTimers[timer] = nil
            }
        }
        let state = machine.state
        if state == .disconnected {
            call.update { snapshot in
                if snapshot.details.disconnectedAt == nil { snapshot.details.disconnectedAt = Date() }
            }
        }
        guard !mediaLifecycle.isStopping else { return }  // `mediaStopped()` catches up.
        publishState()
        if state == .disconnected { finish() }
    }

    /// The public state moves on the delegate queue, in step with the callbacks (see `deliver`);
    /// this catches up with the machine once this step's callbacks have run.
    func publishState() {
        let state = machine.state
        guard state != publishedState else { return }
        publishedState = state
        let call = self.call
        delegateQueue.async { call.update { $0.state = state } }
    }

    func deliver(_ callback: CallStateCallback) {
        reportToTransferor(callback)
        let call = self.call
        // The state a delegate reads during its callback is the one the callback announces, even
        // when the machine has already moved on (a fast reconnect, ringing and connected in one
        // step): the public state is set on the delegate queue right before the callback.
        let announced: CallState
        let event: CallEvent
        let notify: @Sendable (CallDelegate) -> Void
        switch callback {
        case .didStartRinging:
            call.update { $0.details.ringingAt = Date() }
            (announced, event) = (.ringing, .ringing)
            notify = { $0.callDidStartRinging(call) }
        case .didConnect:
            client.metrics.callConnected(role, setupNanoseconds: (now - startedAt).nanoseconds)
            call.update { $0.details.connectedAt = Date() }
            (announced, event) = (.connected, .connected)
            notify = { $0.callDidConnect(call) }
        case .didFailToConnect(let error):
            let voiceError = voiceError(error)
            client.metrics.callEnded(role, wasConnected: false, error: voiceError)
            let cause = CallEndCause(failure: voiceError, rang: machine.ringingAt != nil, timedOut: machine.endingTimer.isReconnection)
            call.update { $0.details.endCause = cause }
            stopRingback()
            if cause == .denied { playBusyTone() }
            (announced, event) = (.disconnected, .failedToConnect(voiceError))
            notify = { $0.call(call, didFailToConnectWithError: voiceError) }
        case .didDisconnect(let error):
            let voiceError = error.map { self.voiceError($0) }
            client.metrics.callEnded(role, wasConnected: true, error: voiceError)
            let cause: CallEndCause
            if let voiceError {
                cause = CallEndCause(failure: voiceError, rang: true, timedOut: machine.endingTimer.isReconnection)
            } else if machine.connectedAt == nil {
                cause = .canceled  // our disconnect() before the answer: a CANCEL
            } else {
                cause = machine.endCause == .localDisconnect ? .local : .remote
            }
            call.update { snapshot in
                if snapshot.details.endCause == nil { snapshot.details.endCause = cause }
            }
            (announced, event) = (.disconnected, .disconnected(voiceError))
            notify = { $0.call(call, didDisconnectWithError: voiceError) }
        case .isReconnecting(let error):
            if error.code == CallStateError.mediaConnectionError.code { trackMedia(.mediaSilent) }
            let voiceError = voiceError(error)
            (announced, event) = (.reconnecting, .reconnecting(voiceError))
            notify = { $0.call(call, isReconnectingWithError: voiceError) }
        case .didReconnect:
            (announced, event) = (.connected, .reconnected)
            notify = { $0.callDidReconnect(call) }
        }
        announce(event, update: { $0.state = announced }, notify)
        if case .didConnect = callback {
            hasConnected = true
            reportAudioInterruption()  // One that began while the call was being answered.
        }
    }

    /// On the delegate queue, in order with every other callback: applies `update` to the
    /// public snapshot, calls the delegate, and yields `event` on ``Call/events``.
    func announce(
        _ event: CallEvent, update: (@Sendable (inout Call.Snapshot) -> Void)? = nil,
        _ notify: @escaping @Sendable (CallDelegate) -> Void
    ) {
        let call = self.call
        let delegate = self.delegate
        let continuation = call.eventContinuation
        delegateQueue.async {
            if let update { call.update(update) }
            if let value = delegate.value { notify(value) }
            continuation.yield(event)
        }
    }

    // MARK: - SIP session events

    func sessionEvent(_ event: SIPInviteSessionEvent) {
        switch event {
        case .progress(let code) where code == 180 || code == 183:
            run(machine.ringing(now: now))
            startRingback()
        case .ringing:
            run(machine.ringing(now: now))
            startRingback()
        case .earlyMedia(let negotiated):
            signalingState(.haveRemotePranswer)
            run(machine.ringing(now: now))
            stopRingback()
            earlyMediaArrived(negotiated)
        case .progress:
            break
        case .redirected(let status, let target):
            client.logger.info("call \(sid): redirected\(status.map { " by a \($0)" } ?? " after a failed target") to \(target)")
            var payload: [String: InsightsValue] = ["target": .string(target.description)]
            if let status { payload["status"] = .int(status) }
            publish(.connection(.redirected, callSid: sid.isEmpty ? nil : sid, at: Date(), payload: payload))
        case .answered(let negotiated):
            answerSent(negotiated)
        case .established(let negotiated):
            stopRingback()
            signalingState(.stable)
            answered(negotiated)
        case .mediaUpdated(let negotiated):
            lastOfferAnswerAt = now
            signalingState(.stable)
            applyMedia(negotiated)
            if machine.reconnectCauses.contains(.signaling) { run(machine.signalingConnectionRestored(now: now)) }
        case .holdFailed(let statusCode), .resumeFailed(let statusCode):
            if machine.reconnectCauses.contains(.signaling) {
                run(machine.signalingReconnectFailed(now: now))
            } else if statusCode != 503 {
                // The peer refused the change (a 503 is a lost connection: the session keeps the
                // wish and the reconnection's re-INVITE asks again): back to what is in force.
                if case .holdFailed = event { holdRefused(statusCode) } else { resumeRefused(statusCode) }
            }
        case .sessionRefreshFailed(let statusCode):
            client.logger.warning("call \(sid): a session refresh failed (\(statusCode.map(String.init) ?? "not sent")); the call ends if none succeeds in time")
        case .infoReceived(let contentType, let body, let headers):
            receiveMessage(contentType: contentType, body: body, headers: headers)
        case .dtmfReceived(let digit, let duration):
            digitArrived(digit, duration: Double(duration) / 1_000, via: .sipInfo)
        case .infoResult:
            // INFO results come back through the future of each `sendInfo`.
            break
        case .referReceived(let referral):
            referReceived(referral)
        case .referProgress(let progress):
            referProgress(progress)
        case .terminated(let reason):
            sessionEnded(reason)
        }
    }

    func sessionEnded(_ reason: SIPSessionEndReason) {
        // Answered, then ended while the media was still starting: it did connect.
        runMedia(mediaLifecycle.sessionEnded())
        switch reason {
        case .localHangUp, .cancelledByLocal, .declined:
            if !machine.isDisconnected { run(machine.remoteHangUp(now: now)) }
        case .remoteHangUp:
            run(machine.remoteHangUp(now: now))
        default:
            if machine.reconnectCauses.contains(.signaling) {
                // The re-INVITE after a lost connection could not be sent or was not answered.
                run(machine.signalingReconnectFailed(now: now))
                return
            }
            let error = VoiceError(sessionEndReason: reason) ?? VoiceError(.connectionError, failureReason: "\(reason)")
            run(machine.signalingFailed(stateError(error), now: now))
        }
    }

    /// A TCP/TLS connection to `remote` closed. It concerns this call when the call's requests
    /// went to `remote` (a next hop we can dial again) or the peer's INVITE came over it.
    ///
    /// Over a connection we opened, the call is reconnecting (53001) and re-INVITEs at once; the
    /// request opens a new connection. Over one the peer opened, nothing is lost that we relied
    /// on (we reach the peer by opening a connection to its Contact) and the peer is the one to
    /// reconnect: the call waits a moment for the peer's re-INVITE (a peer that changed networks
    /// closes its old connections and re-INVITEs at once), and only if no offer/answer has
    /// completed meanwhile does it report reconnecting and re-INVITE the peer's Contact itself.
    /// With an outbound proxy every request goes through it, so the call acts at once either way.
    func signalingConnectionLost(_ remote: SIPTransportEndpoint) {
        guard machine.state == .connected || machine.state == .reconnecting, let handle,
            let info = client.agent.callInfo(handle)
        else { return }
        guard info.requestPeers.contains(remote) || info.invitePeer == remote else { return }
        let reopensItself = info.requestPeers.contains(remote) || client.configuration.outboundProxy != nil
        guard !reopensItself else {
            run(machine.signalingConnectionLost(now: now))
            return
        }
        let lostAt = now
        let grace = min(Self.peerReconnectGrace.nanoseconds, machine.configuration.signalingReconnectTimeout.nanoseconds / 2)
        peerReconnectWait?.cancel()
        peerReconnectWait = eventLoop.scheduleTask(in: .nanoseconds(grace)) {
            self.peerReconnectWait = nil
            guard self.lastOfferAnswerAt.map({ $0 < lostAt }) ?? true,
                self.machine.state == .connected || self.machine.state == .reconnecting, let handle = self.handle
            else { return }
            var outputs = self.machine.signalingConnectionLost(now: self.now)
            outputs.removeAll { $0 == .action(.reInviteAfterSignalingReconnect) }
            self.run(outputs)
            self.client.agent.refresh(handle)
        }
    }

    /// How long a call whose peer opened the lost connection waits for the peer's re-INVITE
    /// before sending its own.
    static let peerReconnectGrace = MediaTime.milliseconds(2_000)

    // MARK: - Errors

    /// The machine's compact error for `error`, remembering the full one.
    func stateError(_ error: VoiceError) -> CallStateError {
        errors[error.code.rawValue] = error
        return CallStateError(code: error.code.rawValue, message: error.failureReason ?? error.localizedDescription)
    }

    /// The full error behind one of the machine's.
    func voiceError(_ error: CallStateError) -> VoiceError {
        if let full = errors[error.code] { return full }
        return VoiceError(VoiceError.Code(rawValue: error.code) ?? .connectionError, failureReason: error.message)
    }

    // MARK: - Insights and teardown

    func publish(_ event: InsightsEvent) {
        client.insights.publish(event)
    }

    func finish() {
        stopRingback()
        releaseMedia()
        guard !mediaLifecycle.isStopping else { return }  // `mediaStopped()` finishes.
        signalingState(.closed)
        for timer in stateTimers.values { timer.cancel() }
        stateTimers = [:]
        peerReconnectWait?.cancel()
        peerReconnectWait = nil
        client.callEnded(self)
        let continuation = call.eventContinuation
        let delegate = self.delegate
        delegateQueue.async {
            continuation.finish()
            delegate.release()
        }
        call.core.withLock { $0 = nil }
    }
}

/// Holds a delegate for hops onto its queue; `release()` drops it once the call is over.
final class DelegateBox<Delegate>: @unchecked Sendable {
    // @unchecked: `value` is set once before, released on the delegate queue once the call is
    // over, and read there, or on the loop while the call is still up (an attended transfer's
    // replacement takes it over: `VoiceClient.takeOver`), which is before the release.
    private(set) var value: Delegate?
    /// The delegate object's identity, readable from any thread.
    let id: ObjectIdentifier
    init(_ value: Delegate) {
        self.value = value
        self.id = ObjectIdentifier(value as AnyObject)
    }
    func release() { value = nil }
}
