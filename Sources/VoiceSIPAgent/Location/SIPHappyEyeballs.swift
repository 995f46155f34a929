import VoiceSupport

/// Which of a server's addresses to use when it has both IPv6 and IPv4 ones, raced as RFC 8305
/// (Happy Eyeballs v2) says: the families interleaved, IPv6 first; the next address tried
/// `attemptDelay` after the last one started, or at once when it failed; the first to answer
/// wins and the others are abandoned. A value fed the probes' outcomes and the clock,
/// returning what to do.
///
/// The probes are the driver's: over UDP a request that does not start a dialog (OPTIONS),
/// since sending the request itself to two addresses of one server would fork it; over a
/// connection transport the connection attempt itself.
package struct SIPHappyEyeballs: Sendable {
    /// What the driver is to do.
    package enum Action: Hashable, Sendable {
        /// Send a probe to this target.
        case probe(SIPServerTarget)
        /// Stop waiting for this target's probe (another won).
        case abandon(SIPServerTarget)
        /// This target answered first: use it.
        case won(SIPServerTarget)
        /// Every target failed.
        case exhausted
    }

    /// Where the race is.
    package enum Phase: Hashable, Sendable {
        /// Probes are out for `pending`; `next` is the index of the next target to probe, at
        /// `deadline` if no failure brings it forward.
        case racing(next: Int, pending: [SIPServerTarget], deadline: MediaTime)
        /// A target won, or none did.
        case finished(winner: SIPServerTarget?)
    }

    /// RFC 8305 §5's recommended Connection Attempt Delay.
    package static let defaultAttemptDelay = MediaTime.milliseconds(250)
    /// How long the race waits for any answer before giving up (a server that ignores OPTIONS
    /// must not hold the request for a transaction's 32 s): the request then goes to the
    /// targets in turn, as without a race.
    package static let defaultLimit = MediaTime.seconds(2)

    /// The targets in the order they are tried.
    package let order: [SIPServerTarget]
    package let attemptDelay: MediaTime
    package let limit: MediaTime
    package private(set) var phase: Phase
    /// When the race gives up (``limit`` after its start).
    private var giveUpAt = MediaTime.zero

    /// - Parameter targets: in the located order (SRV and hop order); within each family that
    ///   order is kept.
    package init(
        targets: [SIPServerTarget], attemptDelay: MediaTime = SIPHappyEyeballs.defaultAttemptDelay, limit: MediaTime = SIPHappyEyeballs.defaultLimit
    ) {
        order = Self.interleaved(targets)
        self.attemptDelay = attemptDelay
        self.limit = limit
        phase = .racing(next: 0, pending: [], deadline: .zero)
    }

    /// IPv6 and IPv4 targets alternated, IPv6 first (RFC 8305 §4), each family in its order.
    package static func interleaved(_ targets: [SIPServerTarget]) -> [SIPServerTarget] {
        targets.alternating(firstWhere: { $0.address.contains(":") })
    }

    /// Whether racing is worth it: the targets span both families.
    package static func isWorthRacing(_ targets: [SIPServerTarget]) -> Bool {
        targets.contains { $0.address.contains(":") } && targets.contains { !$0.address.contains(":") }
    }

    /// When ``tick(now:)`` is next due: the next start, or the give-up; nil once finished.
    package var nextDeadline: MediaTime? {
        guard case .racing(let next, _, let deadline) = phase else { return nil }
        return next < order.count ? min(deadline, giveUpAt) : giveUpAt
    }

    /// Starts the race: the first probe.
    package mutating func start(now: MediaTime) -> [Action] {
        guard case .racing(0, let pending, _) = phase, pending.isEmpty else { return [] }
        giveUpAt = now + limit
        return launchNext(now: now, pending: [])
    }

    /// `target`'s probe got an answer: it wins if nothing has yet.
    package mutating func answered(_ target: SIPServerTarget, now: MediaTime) -> [Action] {
        guard case .racing(_, let pending, _) = phase, pending.contains(target) else { return [] }
        phase = .finished(winner: target)
        return pending.filter { $0 != target }.map(Action.abandon) + [.won(target)]
    }

    /// `target`'s probe failed (no answer in the transaction's time, an ICMP error, a refused
    /// connection): the next target starts at once.
    package mutating func failed(_ target: SIPServerTarget, now: MediaTime) -> [Action] {
        guard case .racing(let next, var pending, _) = phase, let index = pending.firstIndex(of: target) else { return [] }
        pending.remove(at: index)
        if next < order.count { return launchNext(now: now, pending: pending) }
        phase = .racing(next: next, pending: pending, deadline: .zero)
        guard pending.isEmpty else { return [] }
        phase = .finished(winner: nil)
        return [.exhausted]
    }

    /// The clock moved: the next target starts when its delay is up; at the limit the race
    /// gives up on every probe still out.
    package mutating func tick(now: MediaTime) -> [Action] {
        guard case .racing(let next, let pending, let deadline) = phase else { return [] }
        if now >= giveUpAt {
            phase = .finished(winner: nil)
            return pending.map(Action.abandon) + [.exhausted]
        }
        guard next < order.count, now >= deadline else { return [] }
        return launchNext(now: now, pending: pending)
    }

    private mutating func launchNext(now: MediaTime, pending: [SIPServerTarget]) -> [Action] {
        guard case .racing(let next, _, _) = phase, next < order.count else {
            phase = .finished(winner: nil)
            return [.exhausted]
        }
        let target = order[next]
        phase = .racing(next: next + 1, pending: pending + [target], deadline: now + attemptDelay)
        return [.probe(target)]
    }
}
