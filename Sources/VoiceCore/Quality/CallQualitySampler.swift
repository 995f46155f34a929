import VoiceRTP
import VoiceMedia

/// Turns consecutive snapshots of a stream's ``AudioStreamStats`` (one a second) into
/// ``CallQualitySample``s whose loss fraction covers exactly the interval between snapshots:
/// lost ÷ (received + lost) from the cumulative counters' differences.
///
/// The first snapshot, and any interval in which nothing was received or expected, uses the
/// stream's RTCP-interval ``AudioStreamStats/fractionLost`` instead. Counter decreases (a stream
/// restarted after a re-INVITE) start over from the new snapshot. The fraction is clamped to 0…1
/// (RFC 3550 cumulative loss can go down with duplicates).
package struct CallQualitySampler: Hashable, Sendable {
    private var lastReceived: UInt64?
    private var lastLost: Int64 = 0

    /// A sampler with no previous snapshot.
    package init() {}

    /// The sample for `stats`, given the mute and hold state at the time of the snapshot.
    package mutating func sample(from stats: AudioStreamStats, isMuted: Bool, isOnHold: Bool = false) -> CallQualitySample {
        var sample = CallQualitySample(streamStats: stats, isMuted: isMuted, isOnHold: isOnHold)
        defer {
            lastReceived = stats.packetsReceived
            lastLost = stats.packetsLost
        }
        guard let previousReceived = lastReceived, stats.packetsReceived >= previousReceived else { return sample }
        let received = Double(stats.packetsReceived - previousReceived)
        let lost = Double(stats.packetsLost) - Double(lastLost)
        let expected = received + lost
        guard expected > 0 else { return sample }
        sample.packetsLostFraction = min(max(lost / expected, 0), 1)
        return sample
    }
}
