/// A local and a remote candidate checked together (RFC 8445 §6.1.2), with its check state.
package struct ICECandidatePair: Hashable, Sendable {
    /// RFC 8445 §6.1.2.6.
    package enum State: Hashable, Sendable {
        case frozen
        case waiting
        case inProgress
        case succeeded
        case failed
    }

    package var local: ICECandidate
    package var remote: ICECandidate
    package var state: State
    /// Whether this pair was nominated (USE-CANDIDATE sent by the controlling agent, or received
    /// by the controlled one on a check that succeeded).
    package var nominated: Bool

    package init(local: ICECandidate, remote: ICECandidate, state: State = .frozen, nominated: Bool = false) {
        self.local = local
        self.remote = remote
        self.state = state
        self.nominated = nominated
    }

    /// The pair's foundation: the local and remote candidates' foundations together.
    package var foundation: String { local.foundation + ":" + remote.foundation }

    /// RFC 8445 §6.1.2.3: 2^32 × min(G, D) + 2 × max(G, D) + (G > D ? 1 : 0), where G is the
    /// controlling agent's candidate's priority and D the controlled agent's.
    package func priority(localIsControlling: Bool) -> UInt64 {
        let g = UInt64(localIsControlling ? local.priority : remote.priority)
        let d = UInt64(localIsControlling ? remote.priority : local.priority)
        return (min(g, d) << 32) + 2 * max(g, d) + (g > d ? 1 : 0)
    }
}
