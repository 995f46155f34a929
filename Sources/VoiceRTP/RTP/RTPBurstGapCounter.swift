/// Burst and gap accounting of a received stream since reception began, by RFC 3611 §4.7.2:
/// a burst is the longest run of packets that starts and ends with a loss and holds no
/// ``gmin`` or more packets received in a row; the rest are gaps. A burst of a single loss
/// (received packets on both sides) counts as an isolated loss in a gap, as the RFC's
/// algorithm does.
///
/// Fed each sequence number once, in order, as received or lost (``RTPReceiverStatistics``
/// feeds it as numbers leave its reordering window). Allocation-free.
package struct RTPBurstGapCounter: Hashable, Sendable {
    /// Where the stream is between two decisions.
    @usableFromInline enum Phase: Hashable, Sendable {
        /// No loss since the last burst closed (or since the start).
        case gap
        /// Losses that may form a burst: packets from its first loss to its last, and losses.
        case lossRun(packets: UInt64, losses: UInt64)
    }

    /// The gap threshold.
    package let gmin: UInt64
    @usableFromInline var phase: Phase = .gap
    @usableFromInline var receivedSinceLoss: UInt64 = 0
    @usableFromInline var packets: UInt64 = 0
    @usableFromInline var bursts: UInt64 = 0
    @usableFromInline var burstPackets: UInt64 = 0
    @usableFromInline var burstLosses: UInt64 = 0
    @usableFromInline var gapLosses: UInt64 = 0

    /// Creates a counter with gap threshold `gmin` (at least 1).
    package init(gmin: Int) { self.gmin = UInt64(max(1, gmin)) }

    /// One packet arrived.
    @inlinable package mutating func received() {
        packets &+= 1
        receivedSinceLoss &+= 1
        if case .lossRun(let runPackets, let losses) = phase, receivedSinceLoss >= gmin {
            close(packets: runPackets, losses: losses)
            phase = .gap
        }
    }

    /// `count` packets in a row were lost.
    @inlinable package mutating func lost(count: UInt64 = 1) {
        guard count > 0 else { return }
        packets &+= count
        switch phase {
        case .gap:
            phase = .lossRun(packets: count, losses: count)
        case .lossRun(let runPackets, let losses):
            phase = .lossRun(packets: runPackets &+ receivedSinceLoss &+ count, losses: losses &+ count)
        }
        receivedSinceLoss = 0
    }

    @inlinable mutating func close(packets runPackets: UInt64, losses: UInt64) {
        if losses >= 2 {
            bursts &+= 1
            burstPackets &+= runPackets
            burstLosses &+= losses
        } else {
            gapLosses &+= losses
        }
    }

    /// The figures so far, with packets `packetMilliseconds` long. A run of losses still open
    /// counts as the burst it is so far.
    package func metrics(packetMilliseconds: Int) -> (burstDensity: UInt8, gapDensity: UInt8, burstDuration: UInt16, gapDuration: UInt16) {
        var final = self
        if case .lossRun(let runPackets, let losses) = phase { final.close(packets: runPackets, losses: losses) }
        let gapPackets = final.packets - final.burstPackets
        let ms = UInt64(max(0, packetMilliseconds))
        return (
            Self.density(final.burstLosses, of: final.burstPackets),
            Self.density(final.gapLosses, of: gapPackets),
            Self.duration(final.burstPackets * ms, over: final.bursts),
            // Gaps lie between and around the bursts: one more than there are bursts.
            Self.duration(gapPackets * ms, over: final.bursts + 1)
        )
    }

    /// `part / whole` in 1/256, at most 255 (RFC 3611 §4.7.1).
    static func density(_ part: UInt64, of whole: UInt64) -> UInt8 {
        guard whole > 0 else { return 0 }
        return UInt8(min(255, part * 256 / whole))
    }

    static func duration(_ total: UInt64, over count: UInt64) -> UInt16 {
        guard count > 0 else { return 0 }
        return UInt16(min(UInt64(UInt16.max), total / count))
    }
}
