import VoiceSupport
/// The lifecycle of one call as a pure value: one mutating function per input event, the time
/// passed in, and the work to do returned as ``CallStateOutput``s in order.
///
/// It knows nothing of SIP, sockets or queues. The call object feeds it what the signaling and
/// media layers report, then performs the outputs: delegate callbacks, `connection` Insights
/// events, driver actions and timers.
///
/// The callback sequences are Twilio's:
///
/// | scenario | callbacks | states |
/// |---|---|---|
/// | caller disconnects before ringing | didDisconnect(nil) | connecting → disconnected |
/// | caller disconnects while ringing | didStartRinging, didDisconnect(nil) | connecting → ringing → disconnected |
/// | fails before ringing | didFailToConnect(e) | connecting → disconnected |
/// | fails after ringing | didStartRinging, didFailToConnect(e) | connecting → ringing → disconnected |
/// | connected, then ended by caller / callee / error | didStartRinging, didConnect, didDisconnect(nil / nil / e) | connecting → ringing → connected → disconnected |
/// | callee disconnects before connected | didDisconnect(nil) | connecting → disconnected |
/// | callee fails to connect | didFailToConnect(e) | connecting → disconnected |
/// | callee connected, then ended | didConnect, didDisconnect(nil or e) | connecting → connected → disconnected |
///
/// A caller whose peer answers without a provisional response still gets `didStartRinging`
/// immediately before `didConnect`, as Twilio does with `answerOnBridge=false`. An accepted invite
/// never rings. Once disconnected, every input is ignored and returns no output; ``disconnect(now:)``
/// is idempotent.
///
/// While connected, media and signaling interruptions are tracked independently (see
/// ``tick(now:lastMediaPacketAt:)`` and ``signalingConnectionLost(now:)``): each gives one
/// `isReconnecting` and, if it recovers, one `didReconnect`; the state stays
/// ``CallState/reconnecting`` while either is still recovering.
package struct CallStateMachine: Sendable, Hashable {
    /// Which side of the call this is.
    package let role: CallStateRole
    /// The reconnection thresholds.
    package let configuration: CallStateMachineConfiguration
    /// The current state.
    package private(set) var state: CallState = .connecting
    /// When the machine was created (the call was placed or the invite accepted).
    package let createdAt: MediaTime
    /// When the call started ringing, if it did.
    package private(set) var ringingAt: MediaTime?
    /// When the call connected, if it did.
    package private(set) var connectedAt: MediaTime?
    /// When the call ended, once it has.
    package private(set) var disconnectedAt: MediaTime?
    /// Why the call ended, once it has.
    package private(set) var endCause: CallStateEndCause?
    /// The timer whose expiry ended the call, if one did (a reconnection or the ring timeout).
    package private(set) var endingTimer: CallStateTimer?
    /// The interruptions the call is currently recovering from; empty unless reconnecting.
    package private(set) var reconnectCauses: Set<CallStateReconnectCause> = []

    /// Deadlines of the running timers.
    private var timerDeadlines: [CallStateTimer: MediaTime] = [:]
    /// Whether the peer is expected to send media (false while either side holds the call).
    private var isMediaExpected = true
    /// The time from which media silence is measured: the connect time, the last packet, or the
    /// moment media became expected again, whichever is latest.
    private var mediaSilenceBaseline: MediaTime?
    /// The media path's consent is lost (RFC 7675): packets the peer still sends do not end the
    /// media reconnection, only ``mediaPathRestored(now:)`` does.
    private var mediaPathConsentLost = false
    /// During a media reconnection, the baseline at the moment silence was detected; any packet
    /// newer than it means media resumed.
    private var mediaOutageBaseline: MediaTime?

    /// Creates the machine of a call placed (`.caller`) or accepted (`.callee`) at `now`, in
    /// ``CallState/connecting``.
    package init(role: CallStateRole, configuration: CallStateMachineConfiguration = .init(), now: MediaTime) {
        self.role = role
        self.configuration = configuration
        self.createdAt = now
    }

    /// Whether the call is connected (not reconnecting): mute, hold and digits have effect only then.
    package var isConnected: Bool { state == .connected }

    /// Whether the call has ended.
    package var isDisconnected: Bool { state == .disconnected }

    /// The outgoing call's INVITE went out: starts the ring timeout, if the configuration has one.
    /// Caller only; ignored unless connecting.
    package mutating func dialing(now: MediaTime) -> [CallStateOutput] {
        guard role == .caller, state == .connecting, let timeout = configuration.ringTimeout else { return [] }
        timerDeadlines[.ringTimeout] = now + timeout
        return [.startTimer(.ringTimeout, deadline: now + timeout)]
    }

    /// The peer is being alerted (a 180/183 arrived). Caller only; ignored for a callee, after
    /// the first, and once connected.
    package mutating func ringing(now: MediaTime) -> [CallStateOutput] {
        guard role == .caller, state == .connecting else { return [] }
        return enterRinging(now: now)
    }

    /// The call was answered: a 2xx to the INVITE (caller) or the ACK to the accepted invite's
    /// 2xx (callee). A caller that never rang rings first. Ignored unless connecting or ringing.
    package mutating func answered(now: MediaTime) -> [CallStateOutput] {
        guard state == .connecting || state == .ringing else { return [] }
        var outputs: [CallStateOutput] = []
        if role == .caller {
            if state == .connecting { outputs += enterRinging(now: now) }
            outputs.append(.insights(.acceptedByRemote))
        }
        if timerDeadlines.removeValue(forKey: .ringTimeout) != nil { outputs.append(.cancelTimer(.ringTimeout)) }
        state = .connected
        connectedAt = now
        mediaSilenceBaseline = now
        outputs += [.insights(.connected), .callback(.didConnect)]
        return outputs
    }

    /// `disconnect()` was called. The first call ends the call normally from any state
    /// (including reconnecting); later calls return nothing.
    package mutating func disconnect(now: MediaTime) -> [CallStateOutput] {
        guard state != .disconnected else { return [] }
        return end(.localDisconnect, hangUp: true, now: now, leading: [.insights(.disconnectCalled)])
    }

    /// The peer hung up (a BYE arrived). Ends a connected or reconnecting call normally; before
    /// connected it is a failure to connect with 31008 (Call Cancelled).
    package mutating func remoteHangUp(now: MediaTime) -> [CallStateOutput] {
        switch state {
        case .disconnected: return []
        case .connecting, .ringing: return end(.error(.callCancelled), hangUp: false, now: now)
        case .connected, .reconnecting: return end(.remoteHangUp, hangUp: false, now: now)
        }
    }

    /// Signaling ended the call with an error: a final non-2xx response, a transaction timeout, a
    /// transport failure. No hang-up is sent (there is no session left). Before connected this is
    /// `didFailToConnect(error)`, after it `didDisconnect(error)`.
    package mutating func signalingFailed(_ error: CallStateError, now: MediaTime) -> [CallStateOutput] {
        guard state != .disconnected else { return [] }
        return end(.error(error), hangUp: false, now: now)
    }

    /// Something local made the call unusable (e.g. media could not be set up, 53400–53407): the
    /// session is hung up and the call fails (`didFailToConnect`) or ends (`didDisconnect`) with
    /// `error`.
    package mutating func mediaFailed(_ error: CallStateError, now: MediaTime) -> [CallStateOutput] {
        guard state != .disconnected else { return [] }
        return end(.error(error), hangUp: true, now: now)
    }

    /// A timer the machine started has expired. Ignored unless that timer is running and its
    /// deadline has passed, so stale or early firings do nothing.
    package mutating func timerFired(_ timer: CallStateTimer, now: MediaTime) -> [CallStateOutput] {
        guard state != .disconnected, let deadline = timerDeadlines[timer], now >= deadline else { return [] }
        timerDeadlines[timer] = nil
        endingTimer = timer
        switch timer {
        case .mediaReconnect: return end(.error(.mediaConnectionError), hangUp: true, now: now)
        case .signalingReconnect: return end(.error(.signalingConnectionDisconnected), hangUp: true, now: now)
        case .ringTimeout:
            guard state == .connecting || state == .ringing else { return [] }
            return end(.error(.noAnswer(after: configuration.ringTimeout ?? .zero)), hangUp: true, now: now)
        }
    }

    // MARK: - Transitions

    private mutating func enterRinging(now: MediaTime) -> [CallStateOutput] {
        state = .ringing
        ringingAt = now
        return [.insights(.ringing), .callback(.didStartRinging)]
    }

    /// Moves to disconnected: cancels running timers, hangs up if asked, releases media, then
    /// reports the end. An error before connected is a failure to connect.
    private mutating func end(
        _ cause: CallStateEndCause, hangUp: Bool, now: MediaTime, leading: [CallStateOutput] = []
    ) -> [CallStateOutput] {
        var outputs = leading
        for timer in CallStateTimer.allCases where timerDeadlines[timer] != nil {
            outputs.append(.cancelTimer(timer))
        }
        timerDeadlines = [:]
        if hangUp { outputs.append(.action(.hangUpSignaling)) }
        outputs.append(.action(.releaseMedia))
        let wasConnected = connectedAt != nil
        state = .disconnected
        disconnectedAt = now
        endCause = cause
        reconnectCauses = []
        mediaOutageBaseline = nil
        switch cause {
        case .localDisconnect:
            outputs += [.insights(.disconnectedByLocal), .callback(.didDisconnect(nil))]
        case .remoteHangUp:
            outputs += [.insights(.disconnectedByRemote), .callback(.didDisconnect(nil))]
        case .error(let error):
            outputs.append(.insights(.error(error)))
            outputs.append(.callback(wasConnected ? .didDisconnect(error) : .didFailToConnect(error)))
        }
        return outputs
    }
}

/// Reconnection: media silence and lost signaling, each recovered or timed out independently.
extension CallStateMachine {
    /// The periodic input (e.g. once a second) with the arrival time of the peer's latest media
    /// packet, or `nil` if none arrived yet.
    ///
    /// While connected and media is expected, silence longer than
    /// ``CallStateMachineConfiguration/mediaSilenceThreshold`` (measured from the connect time, the
    /// last packet, or the moment media became expected again) starts a media reconnection:
    /// `isReconnecting(53405)` and a ``CallStateTimer/mediaReconnect`` timer. A packet newer than
    /// the silence, arriving before the deadline, recovers it (`didReconnect`). Expired reconnection
    /// deadlines end the call here as well, so a driver that only ticks still times out.
    package mutating func tick(now: MediaTime, lastMediaPacketAt: MediaTime?) -> [CallStateOutput] {
        guard state == .connected || state == .reconnecting else { return [] }
        var outputs: [CallStateOutput] = []
        if !mediaPathConsentLost, let outage = mediaOutageBaseline, let packet = lastMediaPacketAt, packet > outage,
            packet <= timerDeadlines[.mediaReconnect] ?? packet
        {
            outputs += recover(.media, now: now)
        }
        for timer in CallStateTimer.allCases {
            if let deadline = timerDeadlines[timer], now >= deadline {
                return outputs + timerFired(timer, now: now)
            }
        }
        if let packet = lastMediaPacketAt, let baseline = mediaSilenceBaseline, packet > baseline {
            mediaSilenceBaseline = packet
        }
        if isMediaExpected, !reconnectCauses.contains(.media), let baseline = mediaSilenceBaseline,
            now - baseline > configuration.mediaSilenceThreshold
        {
            mediaOutageBaseline = baseline
            outputs += startReconnecting(.media, now: now)
        }
        return outputs
    }

    /// The media path lost the peer's consent (RFC 7675: no answer to our consent checks), so
    /// our media stopped: `isReconnecting(53405)` and the ``CallStateTimer/mediaReconnect`` timer,
    /// as for silence, even while the peer's packets still arrive. Only
    /// ``mediaPathRestored(now:)`` recovers it; at the deadline the call ends with 53405.
    package mutating func mediaPathLost(now: MediaTime) -> [CallStateOutput] {
        guard state == .connected || state == .reconnecting else { return [] }
        mediaPathConsentLost = true
        guard !reconnectCauses.contains(.media) else { return [] }
        mediaOutageBaseline = now
        return startReconnecting(.media, now: now)
    }

    /// Consent is back: the media reconnection it started (or a silence one under way) recovers.
    package mutating func mediaPathRestored(now: MediaTime) -> [CallStateOutput] {
        guard mediaPathConsentLost else { return [] }
        mediaPathConsentLost = false
        guard state == .reconnecting, reconnectCauses.contains(.media) else { return [] }
        return recover(.media, now: now)
    }

    /// Whether the peer is expected to send media: `false` while the call is on hold on either
    /// side (the peer sends nothing then), `true` again on resume. Silence is not measured while
    /// media is not expected; a media reconnection in progress counts as recovered, since the peer
    /// told us over signaling why it stopped. Ignored unless connected or reconnecting.
    package mutating func mediaExpectationChanged(expected: Bool, now: MediaTime) -> [CallStateOutput] {
        guard state == .connected || state == .reconnecting, expected != isMediaExpected else { return [] }
        isMediaExpected = expected
        if expected {
            mediaSilenceBaseline = now
            return []
        }
        return reconnectCauses.contains(.media) ? recover(.media, now: now) : []
    }

    /// The TCP/TLS signaling connection was lost. While connected: `isReconnecting(53001)`, the
    /// ``CallStateAction/reInviteAfterSignalingReconnect`` action and a
    /// ``CallStateTimer/signalingReconnect`` timer; ignored while already recovering signaling.
    /// Before connected the call cannot be recovered and fails with 53001.
    package mutating func signalingConnectionLost(now: MediaTime) -> [CallStateOutput] {
        switch state {
        case .disconnected: return []
        case .connecting, .ringing: return end(.error(.signalingConnectionDisconnected), hangUp: true, now: now)
        case .connected, .reconnecting:
            guard !reconnectCauses.contains(.signaling) else { return [] }
            return [.action(.reInviteAfterSignalingReconnect)] + startReconnecting(.signaling, now: now)
        }
    }

    /// The signaling connection is back and the re-INVITE was answered: `didReconnect`. Ignored
    /// unless signaling is recovering.
    package mutating func signalingConnectionRestored(now: MediaTime) -> [CallStateOutput] {
        guard reconnectCauses.contains(.signaling) else { return [] }
        return recover(.signaling, now: now)
    }

    /// Re-establishing the signaling connection or the re-INVITE failed: the call ends with
    /// 53001. Ignored unless signaling is recovering.
    package mutating func signalingReconnectFailed(now: MediaTime) -> [CallStateOutput] {
        guard reconnectCauses.contains(.signaling) else { return [] }
        return end(.error(.signalingConnectionDisconnected), hangUp: true, now: now)
    }

    // MARK: - Transitions

    private mutating func startReconnecting(_ cause: CallStateReconnectCause, now: MediaTime) -> [CallStateOutput] {
        reconnectCauses.insert(cause)
        state = .reconnecting
        let (timer, timeout) = reconnectTimer(for: cause)
        let deadline = now + timeout
        timerDeadlines[timer] = deadline
        return [
            .startTimer(timer, deadline: deadline),
            .insights(.reconnecting(cause.error)),
            .callback(.isReconnecting(cause.error)),
        ]
    }

    private mutating func recover(_ cause: CallStateReconnectCause, now: MediaTime) -> [CallStateOutput] {
        reconnectCauses.remove(cause)
        if reconnectCauses.isEmpty { state = .connected }
        let (timer, _) = reconnectTimer(for: cause)
        var outputs: [CallStateOutput] = []
        if timerDeadlines.removeValue(forKey: timer) != nil { outputs.append(.cancelTimer(timer)) }
        if cause == .media {
            mediaOutageBaseline = nil
            mediaSilenceBaseline = now
        }
        outputs += [.insights(.reconnected(cause)), .callback(.didReconnect)]
        return outputs
    }

    private func reconnectTimer(for cause: CallStateReconnectCause) -> (CallStateTimer, MediaTime) {
        switch cause {
        case .media: (.mediaReconnect, configuration.mediaReconnectTimeout)
        case .signaling: (.signalingReconnect, configuration.signalingReconnectTimeout)
        }
    }
}
