import VoiceAddress
import VoiceSupport

/// One resolution of a peer's `.local` names on the link (RFC 6762 one-shot queries, §5.1), as a
/// value: fed the clock and the responses heard, it says what to send and when it is over.
///
/// Each name is asked once for type ANY: a browser answers ANY at once with whichever address
/// it has (A/AAAA answers are rate-limited to one a second per record), and ignores a question
/// with the unicast-response bit, so the query is a plain QM one and the answer comes to the
/// group. One retransmission after ``retransmitDelay``; the lookup finishes when every name
/// has an address or at its deadline, with what it has.
package struct MulticastDNSLookup: Sendable {
    /// At most this many names per lookup: an SDP naming more gets the first ones resolved.
    package static let maximumNames = 8
    /// The wait before the one retransmission.
    package static let retransmitDelay = MediaTime.milliseconds(250)

    package enum Phase: Hashable, Sendable {
        /// Waiting for answers; the retransmission is due at the time given, if not sent yet.
        case asking(retransmitAt: MediaTime?, deadline: MediaTime)
        /// Over: every name answered, or the deadline passed.
        case finished
    }

    package enum Action: Hashable, Sendable {
        /// Send this query to the group on every interface, both families.
        case send([UInt8])
        /// The lookup is over: the address each name resolved to (names without one are absent).
        case finished([String: IPAddress])
    }

    /// The names asked, normalized (lowercase, no trailing dot).
    package let names: [String]
    package private(set) var phase: Phase
    package private(set) var resolved: [String: IPAddress] = [:]

    /// A lookup of the valid `.local` names among `names` (see ``isResolvable(_:)``; duplicates
    /// once), at most ``maximumNames``, over after `timeout`.
    package init(names: [String], now: MediaTime, timeout: MediaTime) {
        var kept: [String] = []
        for name in names where Self.isResolvable(name) {
            let normalized = DNSName.normalized(name)
            if !kept.contains(normalized) { kept.append(normalized) }
        }
        self.names = Array(kept.prefix(Self.maximumNames))
        phase = .asking(retransmitAt: now + Self.retransmitDelay, deadline: now + timeout)
    }

    /// Whether `name` is one label of letters, digits and hyphens (what browsers' UUID names
    /// are) followed by `.local`: anything else in an SDP is not asked on the link.
    package static func isResolvable(_ name: String) -> Bool {
        let lower = name.lowercased()
        let trimmed = lower.hasSuffix(".") ? String(lower.dropLast()) : lower
        guard trimmed.hasSuffix(".local") else { return false }
        let label = trimmed.dropLast(".local".count)
        return (1...63).contains(label.utf8.count) && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    /// Starts: one query per name, or finishes at once when there is nothing to ask or `known`
    /// (answers heard before, still fresh) has every name already.
    package mutating func start(known: [String: IPAddress] = [:]) -> [Action] {
        for name in names { if let address = known[name] { resolved[name] = address } }
        if let done = finishIfComplete() { return [done] }
        return queries()
    }

    /// A response heard on the link (anyone's: answers go to the group).
    package mutating func received(_ response: MulticastDNSResponse) -> [Action] {
        guard case .asking = phase else { return [] }
        for name in names where resolved[name] == nil {
            // IPv4 first where a name has both: the family our host candidates always include.
            let addresses = response.addresses(of: name)
            if let address = addresses.first(where: { !$0.isIPv6 }) ?? addresses.first { resolved[name] = address }
        }
        return finishIfComplete().map { [$0] } ?? []
    }

    /// Time passed: the retransmission, or the end.
    package mutating func tick(now: MediaTime) -> [Action] {
        guard case .asking(let retransmitAt, let deadline) = phase else { return [] }
        if now >= deadline {
            phase = .finished
            return [.finished(resolved)]
        }
        if let retransmitAt, now >= retransmitAt {
            phase = .asking(retransmitAt: nil, deadline: deadline)
            return queries()
        }
        return []
    }

    /// When ``tick(now:)`` next has something to do; nil once finished.
    package var nextDeadline: MediaTime? {
        guard case .asking(let retransmitAt, let deadline) = phase else { return nil }
        return retransmitAt.map { min($0, deadline) } ?? deadline
    }

    private func queries() -> [Action] {
        names.filter { resolved[$0] == nil }.map { .send(MulticastDNSResponse.query(for: $0, type: .any)) }
    }

    private mutating func finishIfComplete() -> Action? {
        guard names.allSatisfy({ resolved[$0] != nil }) else { return nil }
        phase = .finished
        return .finished(resolved)
    }
}
