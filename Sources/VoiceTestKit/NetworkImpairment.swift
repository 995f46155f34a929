import VoiceMedia
import VoiceTestAudio
import VoiceSupport

/// User-space network impairment: random or bursty loss, extra delay (jitter) and reordering.
package struct NetworkImpairment: Hashable, Sendable {
    /// Probability that a packet is dropped, 0…1 (the long-run loss rate, also with bursts).
    package var lossRate: Double
    /// Mean length of a loss burst, in packets. 1 (the default) drops each packet independently;
    /// above 1, losses follow a two-state Gilbert–Elliott chain: every packet in the bad state is
    /// lost, none in the good state, a bad run lasts `meanBurstLength` packets on average, and
    /// the good→bad probability is set so that the long-run loss is still `lossRate`.
    package var meanBurstLength: Double
    /// Extra one-way delay added to every packet.
    package var baseDelay: MediaTime
    /// Each packet gets a further uniform random delay in 0…jitter.
    package var jitter: MediaTime
    /// Probability that a packet is held back long enough to arrive after the next one.
    package var reorderRate: Double
    /// Seed for the pseudo-random decisions (runs are repeatable).
    package var seed: UInt64

    package init(
        lossRate: Double = 0, meanBurstLength: Double = 1, baseDelay: MediaTime = .zero, jitter: MediaTime = .zero,
        reorderRate: Double = 0, seed: UInt64 = 0x5EED
    ) {
        self.lossRate = lossRate
        self.meanBurstLength = meanBurstLength
        self.baseDelay = baseDelay
        self.jitter = jitter
        self.reorderRate = reorderRate
        self.seed = seed
    }

    /// No impairment at all.
    package static let none = NetworkImpairment()
}

/// Decides, packet by packet, whether to drop it and when to deliver it. A pure value type:
/// the same seed and arrival times give the same decisions.
package struct ImpairmentModel: Sendable {
    package let impairment: NetworkImpairment
    private var rng: SplitMix64
    private var inBurst = false
    /// Packets seen, dropped, and reordered so far.
    package private(set) var seen = 0
    package private(set) var dropped = 0
    package private(set) var reordered = 0

    package init(_ impairment: NetworkImpairment) {
        self.impairment = impairment
        self.rng = SplitMix64(seed: impairment.seed)
    }

    /// When a packet arriving at `now` should be delivered, or nil to drop it.
    package mutating func deliveryTime(forPacketAt now: MediaTime, packetInterval: MediaTime = .milliseconds(20)) -> MediaTime? {
        seen += 1
        if isLost() {
            dropped += 1
            return nil
        }
        var delay = impairment.baseDelay
        if impairment.jitter.nanoseconds > 0 {
            delay += MediaTime(nanoseconds: Int64(rng.nextUnit() * Double(impairment.jitter.nanoseconds)))
        }
        if rng.nextUnit() < impairment.reorderRate {
            reordered += 1
            delay += MediaTime(nanoseconds: packetInterval.nanoseconds + packetInterval.nanoseconds / 2)
        }
        return now + delay
    }

    /// Draws whether the next packet is lost: independently, or from the Gilbert–Elliott chain.
    private mutating func isLost() -> Bool {
        let loss = impairment.lossRate
        guard impairment.meanBurstLength > 1, loss > 0, loss < 1 else { return rng.nextUnit() < loss }
        let badToGood = 1 / impairment.meanBurstLength
        // Stationary P(bad) = p / (p + r) = loss  ⇒  p = loss · r / (1 − loss).
        let goodToBad = min(1, loss * badToGood / (1 - loss))
        let u = rng.nextUnit()
        inBurst = inBurst ? u >= badToGood : u < goodToBad
        return inBurst
    }
}
