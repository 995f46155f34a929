import VoiceSupport
/// Tuning of a ``JitterBuffer``: RTP clock, playout frame size, delay bounds, storage and the
/// delay estimator. Plain value; freely shared across threads.
package struct JitterBufferConfiguration: Hashable, Sendable {
    /// RTP clock rate of the stream, in Hz (48 000 for Opus).
    package var clockRate: Int = 48_000
    /// RTP units in one playout frame (the ptime): 960 is 20 ms at 48 kHz.
    package var frameDuration: Int = 960
    /// Lowest target delay the buffer aims for.
    package var minDelay: MediaTime = .milliseconds(20)
    /// Highest target delay; also how long an underrun is concealed before it turns into silence.
    package var maxDelay: MediaTime = .milliseconds(400)
    /// Target delay used until the estimator has seen enough packets.
    package var initialDelay: MediaTime = .milliseconds(60)
    /// Packet slots: how many sequence numbers ahead of playout can be held.
    package var capacity: Int = 64
    /// Largest payload a slot holds, in bytes; bigger payloads are refused.
    package var maxPayloadSize: Int = 1500
    /// Quantile of the relative delay distribution the target covers (0...1).
    package var quantile: Double = 0.95
    /// Delay samples kept in the sliding window (one per received packet).
    package var windowSize: Int = 250
    /// Shortest time between two delay adjustments made while speech is playing.
    /// Adjustments in silence (DTX gaps, talkspurt starts, underruns) are not rate-limited.
    package var adaptationInterval: MediaTime = .milliseconds(100)
    /// How long the delay must have been two frames or more above target, with no silence in
    /// which to shed it, before packets are dropped during speech.
    package var shrinkPatience: MediaTime = .seconds(2)
    /// Steer the delay during speech by time-scale modification, keeping it within a band
    /// centred on the target and as wide as the longest change (half a frame, at most 15 ms):
    /// packets are played shortened (``JitterBufferPlayout/accelerate(length:duration:urgent:by:)``)
    /// above the band and lengthened (``JitterBufferPlayout/stretch(length:duration:urgent:by:)``)
    /// below it. Near the band only quiet frames are changed (pauses, where listeners do not
    /// notice); voiced ones too once the delay is a frame above the band or a band's width
    /// below it. Below target the delay also grows by concealment on an underrun; above it,
    /// a packet is still dropped after `shrinkPatience` two frames over, the fallback when
    /// nothing can be time-scaled. When false, the delay grows by inserting a concealed frame
    /// during speech and shrinks only in silence or by that drop.
    package var timeStretch = true
    /// A sequence number further ahead than this of the highest seen is a jump (RFC 3550 A.1).
    package var maxDropout: Int = 3000
    /// A sequence number further behind than this of the highest seen is a jump (RFC 3550 A.1).
    package var maxMisorder: Int = 100
    /// A timestamp further than this from the playout position is a jump.
    package var maxTimestampJump: MediaTime = .seconds(1)
    /// This many late packets in a row (none accepted between) mean the sender's timeline moved
    /// behind ours (e.g. its clock paused): the next late one resynchronizes the buffer.
    package var maxConsecutiveLate: Int = 10

    /// Creates the default configuration: 48 kHz, 20 ms frames, 20–400 ms delay, 64 slots.
    package init() {}

    /// Creates a configuration for `clockRate` with `frameDuration` RTP units per frame; other
    /// values keep their defaults.
    package init(clockRate: Int, frameDuration: Int) {
        self.clockRate = clockRate
        self.frameDuration = frameDuration
    }

    /// Checks every value is usable; ``JitterBuffer/init(configuration:)`` clamps bad values instead.
    package func validate() throws(JitterBufferConfigurationError) {
        guard clockRate > 0 else { throw .clockRate }
        guard frameDuration > 0 else { throw .frameDuration }
        guard capacity > 0 else { throw .capacity }
        guard maxPayloadSize > 0 else { throw .maxPayloadSize }
        guard windowSize > 0 else { throw .windowSize }
        guard quantile >= 0, quantile <= 1 else { throw .quantile }
        guard minDelay.nanoseconds >= 0, minDelay <= maxDelay else { throw .delayBounds }
        guard maxDropout > 0, maxMisorder > 0, maxTimestampJump.nanoseconds > 0, maxConsecutiveLate > 0 else {
            throw .jumpThresholds
        }
        guard adaptationInterval.nanoseconds >= 0, shrinkPatience.nanoseconds >= 0 else { throw .adaptationTiming }
    }

    /// This configuration with every out-of-range value replaced by the nearest usable one.
    var normalized: JitterBufferConfiguration {
        var c = self
        c.clockRate = max(1, clockRate)
        c.frameDuration = max(1, frameDuration)
        c.capacity = max(1, capacity)
        c.maxPayloadSize = max(1, maxPayloadSize)
        c.windowSize = max(1, windowSize)
        c.quantile = quantile.isNaN ? 0.95 : min(1, max(0, quantile))
        c.minDelay = max(.zero, minDelay)
        c.maxDelay = max(c.minDelay, maxDelay)
        c.initialDelay = min(c.maxDelay, max(c.minDelay, initialDelay))
        c.maxDropout = max(1, maxDropout)
        c.maxMisorder = max(1, maxMisorder)
        c.maxConsecutiveLate = max(1, maxConsecutiveLate)
        c.maxTimestampJump = max(.milliseconds(1), maxTimestampJump)
        c.adaptationInterval = max(.zero, adaptationInterval)
        c.shrinkPatience = max(.zero, shrinkPatience)
        return c
    }
}

/// Why a ``JitterBufferConfiguration`` is unusable.
package enum JitterBufferConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `clockRate` is not positive.
    case clockRate
    /// `frameDuration` is not positive.
    case frameDuration
    /// `capacity` is not positive.
    case capacity
    /// `maxPayloadSize` is not positive.
    case maxPayloadSize
    /// `windowSize` is not positive.
    case windowSize
    /// `quantile` is outside 0...1.
    case quantile
    /// `minDelay` is negative or above `maxDelay`.
    case delayBounds
    /// A jump threshold (`maxDropout`, `maxMisorder`, `maxTimestampJump`, `maxConsecutiveLate`)
    /// is not positive.
    case jumpThresholds
    /// `adaptationInterval` or `shrinkPatience` is negative.
    case adaptationTiming

    /// A readable explanation.
    package var description: String {
        switch self {
        case .clockRate: "jitter buffer: clock rate must be positive"
        case .frameDuration: "jitter buffer: frame duration must be positive"
        case .capacity: "jitter buffer: capacity must be positive"
        case .maxPayloadSize: "jitter buffer: max payload size must be positive"
        case .windowSize: "jitter buffer: window size must be positive"
        case .quantile: "jitter buffer: quantile must be within 0...1"
        case .delayBounds: "jitter buffer: need 0 <= minDelay <= maxDelay"
        case .jumpThresholds: "jitter buffer: jump thresholds must be positive"
        case .adaptationTiming: "jitter buffer: adaptation interval and shrink patience must not be negative"
        }
    }
}
