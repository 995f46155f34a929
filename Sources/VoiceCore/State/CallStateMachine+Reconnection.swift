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
    public mutating func tick(now: MediaTime, lastMediaPacketAt: MediaTime?) -> [CallStateOutput] {
        guard state == .connected || state == .reconnecting else { return [] }
        var outputs: [CallStateOutput] = []
        if let outage = mediaOutageBaseline, let packet = lastMediaPacketAt, packet > outage,
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

    /// Whether the peer is expected to send media: `false` while the call is on hold on either
    /// side (the peer sends nothing then), `true` again on resume. Silence is not measured while
    /// media is not expected; a media reconnection in progress counts as recovered, since the peer
    /// told us over signaling why it stopped. Ignored unless connected or reconnecting.
    public mutating func mediaExpectationChanged(expected: Bool, now: MediaTime) -> [CallStateOutput] {
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
    public mutating func signalingConnectionLost(now: MediaTime) -> [CallStateOutput] {
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
    public mutating func signalingConnectionRestored(now: MediaTime) -> [CallStateOutput] {
        guard reconnectCauses.contains(.signaling) else { return [] }
        return recover(.signaling, now: now)
    }

    /// Re-establishing the signaling connection or the re-INVITE failed: the call ends with
    /// 53001. Ignored unless signaling is recovering.
    public mutating func signalingReconnectFailed(now: MediaTime) -> [CallStateOutput] {
        guard reconnectCauses.contains(.signaling) else { return [] }
        return end(.error(.signalingConnectionDisconnected), hangUp: true, now: now)
    }

    // MARK: - Transitions

    mutating func startReconnecting(_ cause: CallStateReconnectCause, now: MediaTime) -> [CallStateOutput] {
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

    mutating func recover(_ cause: CallStateReconnectCause, now: MediaTime) -> [CallStateOutput] {
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

    func reconnectTimer(for cause: CallStateReconnectCause) -> (CallStateTimer, MediaTime) {
        switch cause {
        case .media: (.mediaReconnect, configuration.mediaReconnectTimeout)
        case .signaling: (.signalingReconnect, configuration.signalingReconnectTimeout)
        }
    }
}
