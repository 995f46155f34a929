import VoiceSupport
/// Reception statistics for one remote source, per RFC 3550 appendices A.1, A.3 and A.8.
///
/// A pure value type: feed it every RTP packet of the source with its arrival time already
/// expressed in RTP clock units; it validates the source (probation), tracks the extended
/// highest sequence number, loss and interarrival jitter, and produces report blocks.
/// Allocation-free; as a value type each owner mutates its own copy.
package struct RTPReceiverStatistics: Hashable, Sendable {
    /// Consecutive packets needed before a new source counts as valid (A.1 `MIN_SEQUENTIAL`).
    package static let minSequential = 2
    /// Largest forward jump still treated as loss rather than a restart (A.1 `MAX_DROPOUT`).
    package static let maxDropout: UInt16 = 3000
    /// Largest backward jump still treated as reordering (A.1 `MAX_MISORDER`).
    package static let maxMisorder: UInt16 = 100
    @usableFromInline static let sequenceModulo: UInt32 = 1 << 16

    /// The media clock rate in Hz, used to express jitter in milliseconds.
    package let clockRate: Int

    @usableFromInline var maxSeq: UInt16 = 0
    @usableFromInline var cycles: UInt32 = 0
    @usableFromInline var baseSeq: UInt32 = 0
    @usableFromInline var badSeq: UInt32 = RTPReceiverStatistics.sequenceModulo + 1
    @usableFromInline var probation = 0
    @usableFromInline var started = false
    @usableFromInline var receivedCount: UInt32 = 0
    @usableFromInline var expectedPrior: UInt32 = 0
    @usableFromInline var receivedPrior: UInt32 = 0
    @usableFromInline var lastTransit: Int32?
    /// Jitter scaled by 16, as in the integer form of A.8.
    @usableFromInline var scaledJitter: UInt32 = 0
    /// Which of the 64 sequence numbers up to `maxSeq` have arrived (bit k: `maxSeq - k`):
    /// a duplicate or a replay is counted as A.3 says, but its stale timestamp does not feed
    /// the jitter estimate.
    @usableFromInline var seen: UInt64 = 0
    /// How many of `seen`'s newest bits (at most ``burstHorizon``) stand for numbers since the
    /// source started and are not yet in `burstGap`.
    @usableFromInline var windowFill = 0
    /// How far behind the highest number a packet may still arrive and count as received in
    /// the burst figures: up to 15 packets (300 ms of 20 ms frames, 150 ms of 10 ms ones),
    /// as late as the jitter buffer usually waits. Later ones count as lost there, as RFC 3611
    /// counts a discarded packet; RFC 3550's loss count still takes them.
    @usableFromInline static let burstHorizon = 16
    /// Bursts and gaps (RFC 3611 §4.7.2) of the numbers that have fallen ``burstHorizon``
    /// behind the highest. The gap threshold is 1: a burst is then a run of consecutive
    /// losses, which is what redundancy must span.
    @usableFromInline var burstGap = RTPBurstGapCounter(gmin: 1)

    /// Bursts and gaps of the stream so far (the last ``burstHorizon`` numbers wait).
    package var burstsAndGaps: RTPBurstGapCounter { burstGap }

    /// Creates statistics for a source whose media clock runs at `clockRate` Hz.
    package init(clockRate: Int) {
        self.clockRate = max(1, clockRate)
    }

    /// True once the source has passed probation (A.1).
    @inlinable package var isValid: Bool { started && probation == 0 }

    /// Records one received packet.
    ///
    /// - Parameters:
    ///   - sequenceNumber: The packet's RTP sequence number.
    ///   - timestamp: The packet's RTP timestamp.
    ///   - arrival: The arrival time in RTP clock units (any origin, wrapping allowed).
    /// - Returns: True when the packet counts: the source is valid and the packet is not
    ///   part of a suspected restart. Packets during probation or after a large jump return false.
    @inlinable @discardableResult
    package mutating func received(sequenceNumber: UInt16, timestamp: UInt32, arrival: UInt32) -> Bool {
        if !started {
            started = true
            initSequence(sequenceNumber)
            maxSeq = sequenceNumber &- 1
            probation = Self.minSequential
        }
        switch updateSequence(sequenceNumber) {
        case .ignored: return false
        case .duplicate: return true
        case .counted:
            updateJitter(timestamp: timestamp, arrival: arrival)
            return true
        }
    }

    /// Records one received packet whose arrival time is a ``MediaTime``; converts it to RTP
    /// clock units with ``clockRate`` (the origin does not matter for jitter).
    @inlinable @discardableResult
    package mutating func received(sequenceNumber: UInt16, timestamp: UInt32, arrivalTime: MediaTime) -> Bool {
        let product = arrivalTime.nanoseconds.multipliedFullWidth(by: Int64(clockRate))
        let units = Int64(1_000_000_000).dividingFullWidth(product).quotient
        return received(sequenceNumber: sequenceNumber, timestamp: timestamp, arrival: UInt32(truncatingIfNeeded: units))
    }

    @inlinable mutating func initSequence(_ seq: UInt16) {
        baseSeq = UInt32(seq)
        maxSeq = seq
        badSeq = Self.sequenceModulo + 1
        cycles = 0
        receivedCount = 0
        receivedPrior = 0
        expectedPrior = 0
        lastTransit = nil
        scaledJitter = 0
        seen = 1
        windowFill = 1
    }

    @usableFromInline enum SequenceVerdict {
        /// Probation, or a suspected restart: not counted.
        case ignored
        /// Counted, and its timing is news.
        case counted
        /// Counted (A.3) but already seen: its timing says nothing of the path.
        case duplicate
    }

    /// A.1 `update_seq`, plus duplicate detection.
    @inlinable mutating func updateSequence(_ seq: UInt16) -> SequenceVerdict {
        let udelta = seq &- maxSeq
        if probation > 0 {
            if seq == maxSeq &+ 1 {
                probation -= 1
                maxSeq = seq
                if probation == 0 {
                    initSequence(seq)
                    receivedCount += 1
                    return .counted
                }
            } else {
                probation = Self.minSequential - 1
                maxSeq = seq
            }
            return .ignored
        } else if udelta == 0 {
            receivedCount &+= 1
            return .duplicate
        } else if udelta < Self.maxDropout {
            if seq < maxSeq { cycles &+= Self.sequenceModulo }
            maxSeq = seq
            retire(shift: Int(udelta))
            seen = udelta >= 64 ? 1 : (seen << UInt64(udelta)) | 1
        } else if UInt32(udelta) <= Self.sequenceModulo - UInt32(Self.maxMisorder) {
            if UInt32(seq) == badSeq {
                // Two sequential packets after a big jump: the sender restarted; resync.
                initSequence(seq)
            } else {
                badSeq = (UInt32(seq) + 1) & (Self.sequenceModulo - 1)
                return .ignored
            }
        } else {
            // Behind the highest: reordered, or a duplicate if it already came.
            let behind = maxSeq &- seq
            receivedCount &+= 1
            guard behind < 64 else { return .duplicate }  // too old to tell: no timing from it
            let bit = UInt64(1) << UInt64(behind)
            if seen & bit != 0 { return .duplicate }
            seen |= bit
            return .counted
        }
        receivedCount &+= 1
        return .counted
    }

    /// Feeds the burst counter the numbers a forward move of `shift` pushes past the horizon,
    /// oldest first: each received or lost for good, then those skipped past entirely.
    @inlinable mutating func retire(shift: Int) {
        let horizon = Self.burstHorizon
        let oldest = windowFill - 1
        let firstLeaving = max(0, horizon - shift)
        if firstLeaving <= oldest {
            for k in stride(from: oldest, through: firstLeaving, by: -1) {
                if (seen >> UInt64(k)) & 1 == 1 { burstGap.received() } else { burstGap.lost() }
            }
        }
        if shift > horizon { burstGap.lost(count: UInt64(shift - horizon)) }
        windowFill = min(horizon, windowFill + shift)
    }

    /// A.8: J += (|D| - J) / 16, kept scaled by 16 in integers.
    @inlinable mutating func updateJitter(timestamp: UInt32, arrival: UInt32) {
        let transit = Int32(bitPattern: arrival &- timestamp)
        defer { lastTransit = transit }
        guard let last = lastTransit else { return }
        let d = transit &- last
        let magnitude = d.magnitude
        scaledJitter = scaledJitter &+ magnitude &- ((scaledJitter &+ 8) >> 4)
    }

    /// The extended highest sequence number received: cycles in the high 16 bits (A.3).
    @inlinable package var extendedHighestSequenceNumber: UInt32 { cycles &+ UInt32(maxSeq) }

    /// Packets expected since the source became valid (A.3), 0 before that.
    @inlinable package var expectedPackets: Int64 {
        guard isValid else { return 0 }
        return Int64(extendedHighestSequenceNumber) - Int64(baseSeq) + 1
    }

    /// Packets counted since the source became valid (duplicates included, as in A.3).
    @inlinable package var receivedPackets: Int64 { Int64(receivedCount) }

    /// Cumulative packets lost: expected minus received, clamped to the 24-bit report field.
    @inlinable package var cumulativeLost: Int32 {
        let lost = expectedPackets - receivedPackets
        return Int32(min(max(lost, Int64(RTCPReportBlock.minCumulativeLost)), Int64(RTCPReportBlock.maxCumulativeLost)))
    }

    /// Interarrival jitter in RTP timestamp units (A.8).
    @inlinable package var jitter: UInt32 { scaledJitter >> 4 }

    /// Interarrival jitter in milliseconds.
    @inlinable package var jitterMilliseconds: Double { Double(scaledJitter) / 16 * 1000 / Double(clockRate) }

    /// The loss fraction since the previous call, in 1/256 units, and starts a new interval (A.3).
    @inlinable package mutating func takeFractionLost() -> UInt8 {
        let expected = UInt32(truncatingIfNeeded: expectedPackets)
        let expectedInterval = expected &- expectedPrior
        expectedPrior = expected
        let receivedInterval = receivedCount &- receivedPrior
        receivedPrior = receivedCount
        let lostInterval = Int64(Int32(bitPattern: expectedInterval)) - Int64(Int32(bitPattern: receivedInterval))
        guard Int32(bitPattern: expectedInterval) > 0, lostInterval > 0 else { return 0 }
        // Every packet of the interval lost gives 256/256; the 8-bit field saturates at 255.
        return UInt8(clamping: (lostInterval << 8) / Int64(Int32(bitPattern: expectedInterval)))
    }

    /// Builds a report block for this source and starts a new loss interval.
    ///
    /// - Parameters:
    ///   - ssrc: The reported source's SSRC.
    ///   - lastSR: Middle 32 bits of the NTP timestamp of the last SR from the source, or 0.
    ///   - delaySinceLastSR: Time since that SR arrived, in 1/65536 s, or 0.
    @inlinable package mutating func makeReportBlock(ssrc: UInt32, lastSR: UInt32 = 0, delaySinceLastSR: UInt32 = 0) -> RTCPReportBlock {
        RTCPReportBlock(
            ssrc: ssrc, fractionLost: takeFractionLost(), cumulativeLost: cumulativeLost,
            extendedHighestSequenceNumber: extendedHighestSequenceNumber, jitter: jitter,
            lastSR: lastSR, delaySinceLastSR: delaySinceLastSR)
    }
}
