import VoiceAddress
import VoiceSupport

/// The `.local` addresses heard on the link, asked for or not (a browser announces each new
/// name twice), each kept for its TTL and at most ``maximumLifetime``, at most
/// ``maximumEntries`` names: a lookup for a name announced a moment ago needs no query.
package struct MulticastDNSCache: Sendable {
    package static let maximumEntries = 64
    package static let maximumLifetime = MediaTime.seconds(120)

    private var entries: [String: (address: IPAddress, expires: MediaTime)] = [:]

    package init() {}

    /// Keeps the address records of `response` (a goodbye, TTL 0, removes its name).
    package mutating func learn(_ response: MulticastDNSResponse, at now: MediaTime) {
        for record in response.records {
            guard case .address(let address) = record.data, MulticastDNSLookup.isResolvable(record.name) else { continue }
            if record.ttl == 0 {
                entries[record.name] = nil
                continue
            }
            let lifetime = min(MediaTime.seconds(Double(record.ttl)), Self.maximumLifetime)
            entries[record.name] = (address, now + lifetime)
        }
        if entries.count > Self.maximumEntries {
            entries = entries.filter { $0.value.expires > now }
            for name in entries.sorted(by: { $0.value.expires < $1.value.expires }).prefix(entries.count - Self.maximumEntries).map(\.key) {
                entries[name] = nil
            }
        }
    }

    /// The names whose address is still fresh at `now`.
    package func fresh(at now: MediaTime) -> [String: IPAddress] {
        entries.filter { $0.value.expires > now }.mapValues(\.address)
    }
}
