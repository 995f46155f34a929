import VoiceSupport

/// Answers and failures kept for their TTL, on an injected clock: a value the resolver's owner
/// keeps and asks before each lookup.
///
/// TTLs are held between ``minimumTTL`` and ``maximumTTL``; a negative answer (NXDOMAIN,
/// NODATA) for its SOA's negative TTL, at most ``maximumNegativeTTL``; other failures
/// (timeouts, malformed answers) are not kept. At most ``capacity`` entries: the one that
/// expires first makes room.
package struct DNSCache: Sendable {
    /// What the cache holds for a question.
    package enum Entry: Hashable, Sendable {
        case answer(DNSAnswer)
        case failure(DNSError)
    }

    package static let minimumTTL: UInt32 = 0
    package static let maximumTTL: UInt32 = 86_400
    package static let maximumNegativeTTL: UInt32 = 300

    /// The most entries kept.
    package let capacity: Int
    private var entries: [DNSQuestion: (entry: Entry, expiry: MediaTime)] = [:]

    package init(capacity: Int = 512) { self.capacity = max(1, capacity) }

    /// Entries held now (expired ones included until they are asked for or pushed out).
    package var count: Int { entries.count }

    /// What is kept for `question` and has not expired at `now`.
    package mutating func lookup(_ question: DNSQuestion, now: MediaTime) -> Entry? {
        guard let held = entries[question] else { return nil }
        guard now < held.expiry else {
            entries[question] = nil
            return nil
        }
        return held.entry
    }

    /// Keeps the outcome of a lookup of `question`, if it may be kept.
    package mutating func store(_ outcome: Result<DNSAnswer, DNSError>, for question: DNSQuestion, now: MediaTime) {
        let entry: Entry
        let ttl: UInt32
        switch outcome {
        case .success(let answer):
            entry = .answer(answer)
            ttl = min(max(answer.ttl, Self.minimumTTL), Self.maximumTTL)
        case .failure(let error):
            guard let negative = error.negativeTTL else { return }
            entry = .failure(error)
            ttl = min(negative, Self.maximumNegativeTTL)
        }
        guard ttl > 0 else { return }
        if entries[question] == nil, entries.count >= capacity,
            let soonest = entries.min(by: { $0.value.expiry < $1.value.expiry })?.key
        {
            entries[soonest] = nil
        }
        entries[question] = (entry, now + .seconds(Double(ttl)))
    }

    /// Forgets everything (the host changed networks).
    package mutating func removeAll() { entries.removeAll() }
}
