import VoiceSupport

/// Whether the signaling path to the first hop (outbound proxy or registrar) is alive, from
/// keep-alives that expect an answer (RFC 5626 §4.4): a CRLFCRLF ping answered by a CRLF pong
/// on TCP and TLS, an OPTIONS answered by any response on UDP.
///
/// A pure value driven by the time: ``tick(now:)`` at ``nextDeadline`` says when to ping and
/// when a ping has gone unanswered for ``Configuration/timeout`` (the flow failed), and
/// ``answered(now:)`` when an answer arrived (a failed flow recovered). A path that dies
/// silently is noticed within `interval + timeout`. While failed it pings every
/// ``Configuration/retryInterval`` so that recovery is seen soon.
package struct SIPFlowLiveness: Sendable, Hashable {
    package struct Configuration: Sendable, Hashable {
        /// Time between keep-alives while the flow answers.
        package var interval: MediaTime
        /// How long a keep-alive may go unanswered before the flow counts as failed.
        package var timeout: MediaTime
        /// Time between keep-alives once the flow failed.
        package var retryInterval: MediaTime

        /// Defaults: a ping every 15 s, failed after 10 s without an answer (a dead path is
        /// noticed within 25 s), and a ping every 2 s while failed.
        package init(
            interval: MediaTime = .seconds(15), timeout: MediaTime = .seconds(10), retryInterval: MediaTime = .seconds(2)
        ) {
            self.interval = interval
            self.timeout = timeout
            self.retryInterval = retryInterval
        }
    }

    /// What the driver does.
    package enum Action: Sendable, Hashable {
        /// Send a keep-alive that expects an answer.
        case sendPing
        /// The oldest keep-alive went unanswered for the timeout: the path is dead.
        case failed
        /// An answer came after the flow had failed: the path works again.
        case recovered
    }

    package let configuration: Configuration
    /// Whether the flow counts as failed.
    package private(set) var isFailed = false
    private var nextPing: MediaTime
    /// When the oldest unanswered keep-alive went out.
    private var unansweredSince: MediaTime?

    /// Starts watching at `now`: the first keep-alive goes one interval later.
    package init(configuration: Configuration = Configuration(), now: MediaTime) {
        self.configuration = configuration
        nextPing = now + configuration.interval
    }

    /// When ``tick(now:)`` has something to do next.
    package var nextDeadline: MediaTime {
        guard let unansweredSince, !isFailed else { return nextPing }
        return min(nextPing, unansweredSince + configuration.timeout)
    }

    /// Time passes: a keep-alive is due, or the oldest one has gone unanswered too long.
    package mutating func tick(now: MediaTime) -> [Action] {
        var actions: [Action] = []
        if !isFailed, let unansweredSince, now >= unansweredSince + configuration.timeout {
            isFailed = true
            actions.append(.failed)
        }
        if now >= nextPing {
            actions.append(.sendPing)
            if unansweredSince == nil { unansweredSince = now }
            nextPing = now + (isFailed ? configuration.retryInterval : configuration.interval)
        }
        return actions
    }

    /// An answer to a keep-alive (or any response from the hop) arrived.
    package mutating func answered(now: MediaTime) -> [Action] {
        unansweredSince = nil
        guard isFailed else { return [] }
        isFailed = false
        nextPing = now + configuration.interval
        return [.recovered]
    }
}
