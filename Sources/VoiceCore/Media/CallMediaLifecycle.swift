/// A call's media as the call sees it: started on the first negotiation (the answer, or the
/// peer's early media before it), running, failed, stopping, stopped. A pure value driven by
/// the call's events, returning what ``CallCore`` must do; ``CallCore`` carries the actions
/// out (creating, starting and stopping the media on its media queue) and feeds back what
/// happened.
///
/// Policy:
/// - Media starts on the first negotiation. Started on early media (183 with SDP), it plays
///   what the peer sends and sends silence until the answer, which then applies to the same
///   stream and unmutes it. The callee's starts when its 2xx answers the offer, before the ACK.
/// - An answered call connects once its media runs (the media thread is sending and playing),
///   not when the 2xx arrives; a call that ends while its media is still starting did connect.
/// - The call's callbacks wait while the media stops, so the app hears of the end once the
///   device and the sockets are released.
struct CallMediaLifecycle: Equatable, Sendable {
    enum State: Equatable, Sendable {
        /// No media: nothing negotiated yet, or none could be made for the call.
        case idle
        /// The media is starting. `early`: not answered yet (the peer's early media, or our 2xx
        /// awaiting its ACK);
        /// `connectsWhenRunning`: the call was answered and connects once the media runs.
        case starting(early: Bool, connectsWhenRunning: Bool)
        /// The media runs. `early`: the call is not answered yet.
        case running(early: Bool)
        /// The media could not start: the call fails.
        case failed
        /// The media is stopping; callbacks wait for it.
        case stopping
        /// The media has stopped (or never started): the call may end.
        case stopped
    }

    enum Action: Equatable, Sendable {
        /// Make the media and start it on the current negotiation, muted (sending silence) or not.
        case start(muted: Bool)
        /// Apply the answer to the media started on early media, and let the user's audio out.
        case answerEarlyMedia
        /// The media runs: watch it (liveness, quality, levels).
        case watch
        /// The call is answered and its media runs: it connects.
        case connect
        /// The media did not start: the call fails.
        case fail
        /// Stop the media.
        case stop
        /// The media has stopped: the callbacks that waited go out, and the call may end.
        case deliverWaitingCallbacks
    }

    private(set) var state = State.idle

    /// Whether the media started on early media and the call is not answered yet.
    var isEarly: Bool {
        switch state {
        case .starting(let early, _), .running(let early): early
        default: false
        }
    }

    /// Whether the media runs.
    var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    /// Whether the media is stopping: the call's callbacks wait.
    var isStopping: Bool { state == .stopping }

    /// The peer sent early media (183 with SDP): the media starts, muted. Ignored once media exists.
    mutating func earlyMediaArrived() -> [Action] {
        guard state == .idle else { return [] }
        state = .starting(early: true, connectsWhenRunning: false)
        return [.start(muted: true)]
    }

    /// Our 2xx answered the caller's offer (we are the callee): the media starts, not muted (the
    /// user accepted), so that the caller's first packets and ICE checks meet a running stream.
    /// It counts as early until the ACK: the call connects then, through ``answered()``.
    mutating func answerSent() -> [Action] {
        guard state == .idle else { return [] }
        state = .starting(early: true, connectsWhenRunning: false)
        return [.start(muted: false)]
    }

    /// The call was answered (our 2xx was acknowledged, or the peer's arrived) with its final
    /// negotiation.
    mutating func answered() -> [Action] {
        switch state {
        case .idle:
            state = .starting(early: false, connectsWhenRunning: true)
            return [.start(muted: false)]
        case .starting(early: true, _):
            state = .starting(early: false, connectsWhenRunning: true)
            return [.answerEarlyMedia]
        case .running(early: true):
            state = .running(early: false)
            return [.answerEarlyMedia, .connect]
        case .starting(early: false, _), .running(early: false), .failed, .stopping, .stopped:
            return []
        }
    }

    /// No media could be made for the call (it has no SIP call left to take ports from): an
    /// answered call connects without it.
    mutating func unavailable() -> [Action] {
        guard case .starting(_, let connects) = state else { return [] }
        state = .idle
        return connects ? [.connect] : []
    }

    /// The media runs.
    mutating func started() -> [Action] {
        guard case .starting(let early, let connects) = state else { return [] }
        state = .running(early: early)
        return connects ? [.watch, .connect] : [.watch]
    }

    /// The media failed to start.
    mutating func failedToStart() -> [Action] {
        guard case .starting = state else { return [] }
        state = .failed
        return [.fail]
    }

    /// The SIP session ended. Answered, then ended while the media was still starting: the call
    /// did connect (and now ends).
    mutating func sessionEnded() -> [Action] {
        guard case .starting(let early, true) = state else { return [] }
        state = .starting(early: early, connectsWhenRunning: false)
        return [.connect]
    }

    /// The call no longer needs its media (it ends).
    mutating func release() -> [Action] {
        switch state {
        case .idle:
            state = .stopped
            return []
        case .starting, .running, .failed:
            state = .stopping
            return [.stop]
        case .stopping, .stopped:
            return []
        }
    }

    /// The media has stopped.
    mutating func stopped() -> [Action] {
        guard state == .stopping else { return [] }
        state = .stopped
        return [.deliverWaitingCallbacks]
    }
}
