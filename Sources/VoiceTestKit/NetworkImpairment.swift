import VoiceMedia

/// User-space network impairment: random loss, extra delay (jitter) and reordering.
public struct NetworkImpairment: Hashable, Sendable {
    /// Probability that a packet is dropped, 0…1.
    public var lossRate: Double
    /// Extra one-way delay added to every packet.
    public var baseDelay: MediaTime
    /// Each packet gets a further uniform random delay in 0…jitter.
    public var jitter: MediaTime
    /// Probability that a packet is held back long enough to arrive after the next one.
    public var reorderRate: Double
    /// Seed for the pseudo-random decisions (runs are repeatable).
    public var seed: UInt64

    public init(
        lossRate: Double = 0, baseDelay: MediaTime = .zero, jitter: MediaTime = .zero,
        reorderRate: Double = 0, seed: UInt64 = 0x5EED
    ) {
        self.lossRate = lossRate
        self.baseDelay = baseDelay
        self.jitter = jitter
        self.reorderRate = reorderRate
        self.seed = seed
    }

    /// No impairment at all.
    public static let none = NetworkImpairment()
}

/// Decides, packet by packet, whether to drop it and when to deliver it. A pure value type:
/// the same seed and arrival times give the same decisions.
public struct ImpairmentModel: Sendable {
    public let impairment: NetworkImpairment
    private var rng: SplitMix64
    /// Packets seen, dropped, and reordered so far.
    public private(set) var seen = 0
    public private(set) var dropped = 0
    public private(set) var reordered = 0

    public init(_ impairment: NetworkImpairment) {
        self.impairment = impairment
        self.rng = SplitMix64(seed: impairment.seed)
    }

    /// When a packet arriving at `now` should be delivered, or nil to drop it.
    public mutating func deliveryTime(forPacketAt now: MediaTime, packetInterval: MediaTime = .milliseconds(20)) -> MediaTime? {
        seen += 1
        if rng.nextUnit() < impairment.lossRate {
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
}

/// A small, fast, seedable generator (SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A uniform value in 0..<1.
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
