import Dispatch
import Foundation
import Logging
import NIOCore
import VoiceMedia
import VoiceSIP

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
    var eventLoop: EventLoop { client.agent.eventLoop }
    private let delegate: DelegateBox<CallDelegate>
    private let messageDelegate: DelegateBox<CallMessageDelegate>?
    var machine: CallStateMachine
    var handle: SIPCallHandle?
    var media: SIPCallMedia?
    var negotiated: SDPNegotiatedMedia?
    private var stateTimers: [CallStateTimer: Scheduled<Void>] = [:]
    private var ticker: RepeatedTask?
    private var quality = CallQualityWarningDetector()
    private var sampler = CallQualitySampler()
    private var lastPacketsReceived: UInt64 = 0
    private var lastMediaPacketAt: MediaTime?
    private var messageLimiter = CallMessageRateLimiter()
    private var held = false
    /// The last machine state sent to the delegate queue for ``Call/state``.
    private var publishedState = CallState.connecting
    var mediaTracker = InsightsMediaConnectionTracker()
    var lastSignalingState: InsightsSignalingState?
    /// The full errors behind the machine's compact ones, so details and SIP status survive.
    private var errors: [Int: VoiceError] = [:]
    /// The wait for the peer's re-INVITE after a connection the peer opened was lost.
    private var peerReconnectWait: Scheduled<Void>?
    /// Where this call's media jobs run, one at a time and in order.
    let mediaQueue: DispatchQueue
    /// The SIP answer arrived; the call connects when its media has started.
    private var answerAwaitingMedia = false
    /// A media stop is under way: callbacks and the end of the call wait for it.
    private var mediaStopping = false
    private var callbacksAwaitingMediaStop: [CallStateCallback] = []

    init(
        client: VoiceClient, call: Call, role: CallStateRole, delegate: CallDelegate, delegateQueue: DispatchQueue,
        messageDelegate: CallMessageDelegate?, preferredCodecs: [AudioCodec], enableDSCP: Bool, audioDevice: (any AudioDevice)?
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
        self.machine = CallStateMachine(role: role, configuration: client.configuration.reconnection, now: client.now)
        self.mediaQueue = DispatchQueue(label: "voice-media-call", target: client.mediaControlQueue)
        call.feedbackPublisher.withLock { $0 = client.configuration.insightsPublisher }
    }

    var now: MediaTime { client.now }
    var sid: String { call.sid }

    // MARK: - Feeding the machine

    func run(_ outputs: [CallStateOutput]) {
        for output in outputs {
            switch output {
            case .callback(let callback):
                if mediaStopping { callbacksAwaitingMediaStop.append(callback) } else { deliver(callback) }
            case .insights(let event):
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
        guard !mediaStopping else { return }  // `mediaStopped()` catches up.
        publishState()
        if state == .disconnected { finish() }
    }

    /// The public state moves on the delegate queue, in step with the callbacks (see `deliver`);
    /// this catches up with the machine once this step's callbacks have run.
    private func publishState() {
        let state = machine.state
        guard state != publishedState else { return }
        publishedState = state
        let call = self.call
        delegateQueue.async { call.update { $0.state = state } }
    }

    private func deliver(_ callback: CallStateCallback) {
        let call = self.call
        let delegate = self.delegate
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
            call.update { $0.details.connectedAt = Date() }
            (announced, event) = (.connected, .connected)
            notify = { $0.callDidConnect(call) }
        case .didFailToConnect(let error):
            let voiceError = voiceError(error)
            call.update { $0.details.endCause = .error(voiceError) }
            (announced, event) = (.disconnected, .failedToConnect(voiceError))
            notify = { $0.call(call, didFailToConnectWithError: voiceError) }
        case .didDisconnect(let error):
            let voiceError = error.map { self.voiceError($0) }
            call.update { snapshot in
                if snapshot.details.endCause == nil {
                    snapshot.details.endCause = voiceError.map { .error($0) } ?? (self.machine.endCause == .localDisconnect ? .local : .remote)
                }
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
        let continuation = call.eventContinuation
        delegateQueue.async {
            call.update { $0.state = announced }
            if let value = delegate.value { notify(value) }
            continuation.yield(event)
        }
    }

    // MARK: - SIP session events

    func sessionEvent(_ event: SIPInviteSessionEvent) {
        switch event {
        case .progress(let code) where code == 180 || code == 183:
            run(machine.ringing(now: now))
        case .ringing:
            run(machine.ringing(now: now))
        case .earlyMedia:
            signalingState(.haveRemotePranswer)
            run(machine.ringing(now: now))
        case .progress:
            break
        case .established(let negotiated):
            signalingState(.stable)
            answerAwaitingMedia = true
            startMedia(negotiated)
        case .mediaUpdated(let negotiated):
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
        case .infoReceived(let contentType, let body, let headers):
            receiveMessage(contentType: contentType, body: body, headers: headers)
        case .infoResult, .dtmfReceived:
            // INFO results come back through the future of each `sendInfo`.
            break
        case .terminated(let reason):
            sessionEnded(reason)
        }
    }

    private func sessionEnded(_ reason: SIPSessionEndReason) {
        // Answered, then ended while the media was still starting: it did connect.
        connectIfAnswered()
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
    /// Over a connection we opened, the call re-INVITEs at once; the request opens a new
    /// connection. Over one the peer opened, its ephemeral port cannot be dialled back and the
    /// peer is the one reconnecting: the call first gives the peer's re-INVITE a moment to
    /// arrive (any answered re-INVITE restores it; both ends re-INVITING at once would only
    /// collide with 491), then re-INVITEs the peer's Contact itself. With an outbound proxy every
    /// request goes through it, so the call re-INVITEs at once either way.
    func signalingConnectionLost(_ remote: SIPTransportEndpoint) {
        guard machine.state == .connected || machine.state == .reconnecting, let handle,
            let info = client.agent.callInfo(handle)
        else { return }
        guard info.requestPeers.contains(remote) || info.invitePeer == remote else { return }
        let reopensItself = info.requestPeers.contains(remote) || client.configuration.outboundProxy != nil
        var outputs = machine.signalingConnectionLost(now: now)
        if !reopensItself, outputs.contains(.action(.reInviteAfterSignalingReconnect)) {
            outputs.removeAll { $0 == .action(.reInviteAfterSignalingReconnect) }
            let grace = min(Self.peerReconnectGrace.nanoseconds, machine.configuration.signalingReconnectTimeout.nanoseconds / 2)
            peerReconnectWait?.cancel()
            peerReconnectWait = eventLoop.scheduleTask(in: .nanoseconds(grace)) {
                self.peerReconnectWait = nil
                guard self.machine.reconnectCauses.contains(.signaling), let handle = self.handle else { return }
                self.client.agent.refresh(handle)
            }
        }
        run(outputs)
    }

    /// How long a call whose peer opened the lost connection waits for the peer's re-INVITE
    /// before sending its own.
    static let peerReconnectGrace = MediaTime.milliseconds(2_000)

    // MARK: - Media

    /// Creates the call's media and starts it on ``mediaQueue``; ``mediaStarted(_:)`` or
    /// ``mediaFailed(_:_:)`` follows on the loop.
    private func startMedia(_ negotiated: SDPNegotiatedMedia) {
        self.negotiated = negotiated
        guard media == nil, let handle, let info = client.agent.callInfo(handle) else {
            connectIfAnswered()
            return
        }
        call.update { $0.details.codec = negotiated.codec.name }
        publish(CallInsights.codec(negotiated.codec.name, callSid: sid))
        let media = SIPCallMedia(
            localHost: client.configuration.listenHost, localPort: info.mediaPort,
            audioDevice: client.sharedAudioDevice(audioDevice ?? client.audioDevice), engine: client.configuration.mediaEngine,
            enableDSCP: enableDSCP)
        media.isMuted = call.isMuted
        self.media = media
        let loop = eventLoop
        mediaQueue.async {
            do throws(AudioStreamError) {
                try media.apply(negotiated)
                loop.execute { self.mediaStarted(media) }
            } catch {
                loop.execute { self.mediaFailed(media, error) }
            }
        }
    }

    /// The media runs: the call connects (if answered) and the watchdog starts.
    private func mediaStarted(_ started: SIPCallMedia) {
        guard media === started, !machine.isDisconnected, let negotiated, let handle,
            let info = client.agent.callInfo(handle)
        else { return }
        trackMedia(.started(localAddress: "\(client.configuration.listenHost):\(info.mediaPort)", remoteAddress: "\(negotiated.remoteRTP)"))
        lastMediaPacketAt = now
        ticker = eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in self.tick() }
        connectIfAnswered()
    }

    private func mediaFailed(_ failed: SIPCallMedia, _ error: AudioStreamError) {
        guard media === failed, !machine.isDisconnected else { return }
        answerAwaitingMedia = false
        client.logger.error("media for \(sid) failed to start: \(error)")
        trackMedia(.failed)
        // The 2xx and ACK are through: hang the dialog up too, or the peer would stay
        // connected to a call that has no media.
        run(machine.mediaFailed(stateError(.mediaConnectionFailed("\(error)")), now: now))
    }

    private func connectIfAnswered() {
        guard answerAwaitingMedia else { return }
        answerAwaitingMedia = false
        run(machine.answered(now: now))
    }

    private func applyMedia(_ negotiated: SDPNegotiatedMedia) {
        self.negotiated = negotiated
        if let media {
            let sid = self.sid
            let logger = client.logger
            mediaQueue.async {
                do {
                    try media.apply(negotiated)
                } catch {
                    logger.warning("media update for \(sid) failed: \(error)")
                }
            }
        }
        // Either side's hold (sendonly, recvonly, inactive) may stop the peer's media.
        run(machine.mediaExpectationChanged(expected: negotiated.direction == .sendrecv, now: now))
    }

    /// Stops the media on ``mediaQueue`` (after any start or update still queued there);
    /// ``mediaStopped()`` follows on the loop.
    private func releaseMedia() {
        trackMedia(.closed)
        ticker?.cancel()
        ticker = nil
        guard let media else { return }
        self.media = nil
        mediaStopping = true
        let loop = eventLoop
        mediaQueue.async {
            media.stop()
            loop.execute { self.mediaStopped() }
        }
    }

    /// The media has stopped (sockets closed, device released): what waited for it goes on.
    private func mediaStopped() {
        mediaStopping = false
        let waiting = callbacksAwaitingMediaStop
        callbacksAwaitingMediaStop = []
        for callback in waiting { deliver(callback) }
        run([])
    }

    /// Once a second: the media watchdog and the quality warnings.
    private func tick() {
        guard let stats = media?.stream?.stats, !machine.isDisconnected else { return }
        if stats.packetsReceived > lastPacketsReceived {
            lastPacketsReceived = stats.packetsReceived
            lastMediaPacketAt = now
            trackMedia(.mediaReceived)
        }
        run(machine.tick(now: now, lastMediaPacketAt: lastMediaPacketAt))
        guard machine.isConnected else { return }
        let sample = sampler.sample(from: stats, isMuted: call.isMuted, isOnHold: held)
        guard let change = quality.add(sample, at: Date(), callSid: sid) else { return }
        for event in change.insightsEvents { publish(event) }
        let current = change.current
        let previous = change.previous
        call.update { $0.warnings = current }
        let call = self.call
        let delegate = self.delegate
        delegateQueue.async {
            delegate.value?.call(call, didReceiveQualityWarnings: current, previousWarnings: previous)
        }
        let continuation = call.eventContinuation
        delegateQueue.async { continuation.yield(.qualityWarnings(current: current, previous: previous)) }
    }

    func statsReport() -> CallStatsReport? {
        guard let stream = media?.stream else { return nil }
        return CallStatsReport(streamStats: stream.stats, callSid: sid.isEmpty ? nil : sid)
    }

    // MARK: - Actions

    func disconnect() {
        guard !machine.isDisconnected else { return }
        run(machine.disconnect(now: now))
    }

    func setMuted(_ muted: Bool) {
        guard machine.isConnected, call.isMuted != muted else { return }
        call.update { $0.isMuted = muted }
        media?.isMuted = muted
        publish(CallInsights.connection(muted ? .muted : .unmuted, callSid: sid))
    }

    private func holdRefused(_ statusCode: Int?) {
        client.logger.warning("hold of \(sid) refused (\(statusCode.map(String.init) ?? "not possible now")): the call stays off hold")
        applyHold(false)
    }

    private func resumeRefused(_ statusCode: Int?) {
        client.logger.warning("resume of \(sid) refused (\(statusCode.map(String.init) ?? "not possible now")): the call stays on hold")
        applyHold(true)
    }

    /// The local side of hold: the public flag and the media (silence out, no playback).
    private func applyHold(_ onHold: Bool) {
        held = onHold
        call.update { $0.isOnHold = onHold }
        media?.isOnHold = onHold
    }

    func setOnHold(_ onHold: Bool) {
        guard machine.isConnected, let handle, held != onHold else { return }
        applyHold(onHold)
        if onHold { client.agent.hold(handle) } else { client.agent.resume(handle) }
        signalingState(.haveLocalOffer)
        publish(CallInsights.connection(onHold ? .hold : .unhold, callSid: sid))
    }

    func sendDigits(_ digits: String) {
        guard machine.isConnected, !digits.isEmpty, digits.allSatisfy({ "0123456789*#w".contains($0) }) else {
            client.logger.debug("sendDigits(\(digits)) ignored: not connected or not 0-9 * # w")
            return
        }
        if negotiated?.telephoneEventPayloadType != nil, let media {
            do {
                try media.sendDigits(digits)
                return
            } catch {
                client.logger.warning("RFC 4733 digits failed, falling back to INFO: \(error)")
            }
        }
        sendDigitsByINFO(DTMFSequence(Array(digits)))
    }

    /// INFO application/dtmf-relay, one digit at a time, paced as RFC 4733 digits are (the peer
    /// has no telephone-event): each INFO carries the tone's duration, the next follows after
    /// the tone and its gap, `w` waits its pause.
    private func sendDigitsByINFO(_ sequence: DTMFSequence) {
        var sequence = sequence
        guard let handle, machine.isConnected, let step = sequence.next() else { return }
        let wait: Int
        switch step {
        case .silence(let milliseconds):
            wait = milliseconds
        case .tone(let digit, let milliseconds):
            wait = milliseconds
            if let relay = SIPDTMFRelay(digit: digit, duration: milliseconds) {
                client.agent.sendInfo(handle, contentType: SIPDTMFRelay.contentType, body: relay.body).whenFailure { error in
                    self.client.logger.debug("digit \(digit) by INFO failed: \(error)")
                }
            }
        }
        let rest = sequence
        eventLoop.scheduleTask(in: .milliseconds(Int64(wait))) { self.sendDigitsByINFO(rest) }
    }

    // MARK: - Call messages

    /// Sends `message` as INFO with its identity headers; its own INFO result (matched by the
    /// request, never by arrival order) goes to the message delegate.
    func sendMessage(_ message: CallMessage) {
        guard let handle, machine.isConnected || machine.state == .reconnecting else {
            messageFailed(message, VoiceError(.callDoesNotExist, failureReason: "the call is not connected"))
            return
        }
        let now = self.now
        message.send(over: client.agent, on: handle, admit: { messageLimiter.admit(at: now) }) { error in
            if let error { self.messageFailed(message, error) } else { self.messageSent(message) }
        }
    }

    private func messageSent(_ message: CallMessage) {
        guard let delegate = messageDelegate else { return }
        let call = self.call
        delegateQueue.async { delegate.value?.call(call, didSendMessage: message.voiceEventSid) }
    }

    private func messageFailed(_ message: CallMessage, _ error: VoiceError) {
        guard let delegate = messageDelegate else { return }
        let call = self.call
        delegateQueue.async { delegate.value?.call(call, didFailToSendMessage: message, error: error) }
    }

    /// A message from the peer, on the confirmed call or (caller side) on the early dialog of a
    /// ringing one.
    private func receiveMessage(contentType: String, body: [UInt8], headers: SIPHeaders) {
        guard let message = CallMessage(receivedINFO: body, contentType: contentType, headers: headers) else { return }
        let call = self.call
        if let delegate = messageDelegate {
            delegateQueue.async { delegate.value?.call(call, didReceiveMessage: message) }
        }
        let continuation = call.eventContinuation
        delegateQueue.async { continuation.yield(.messageReceived(message)) }
    }

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
        client.configuration.insightsPublisher.publish(event)
    }

    private func finish() {
        releaseMedia()
        guard !mediaStopping else { return }  // `mediaStopped()` finishes.
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
    // @unchecked: `value` is read and released on the delegate queue only (set once before).
    private(set) var value: Delegate?
    /// The delegate object's identity, readable from any thread.
    let id: ObjectIdentifier
    init(_ value: Delegate) {
        self.value = value
        self.id = ObjectIdentifier(value as AnyObject)
    }
    func release() { value = nil }
}
