import VoiceSupport
extension SIPRegistration {
    /// SplitMix64, seeded once from the generator given at creation: the source of branches and
    /// back-off jitter, reproducible in tests. Not used for secrets.
    struct Randomness: RandomNumberGenerator, Sendable {
        private var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A uniform value in [0, 1).
        mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
    }
}
