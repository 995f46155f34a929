import VoiceSupport
/// An adaptive jitter buffer for one RTP audio stream: packets go in as they arrive, frames come
/// out in order at the playout pace, with the delay steered toward measured network jitter.
///
/// A pure value type: time is passed in (`arrival`, `now`), no clock is read, nothing sleeps,
/// and all storage (packet slots, payload bytes, the delay window) is allocated in `init`, so
/// ``insert(sequenceNumber:timestamp:ssrc:marker:payload:duration:arrival:)`` and
/// ``nextFrame(at:into:)`` allocate nothing. Codec-agnostic: it stores payload bytes and tells
/// the caller what to decode. Not internally synchronized: own it from one thread (or guard it).
///
/// Policy, in short:
/// - Sequence numbers and timestamps are extended to 64 bits (wrap-safe).
/// - A packet is *late* when its sequence number is behind the playout position or its whole
///   span lies before the playout timestamp. A missing frame's *successor* is kept and used as
///   the FEC source for it (``JitterBufferPlayout/recoverFromNext(length:duration:)``); a packet
///   whose frame already went out is never useful, since its FEC describes an even older frame.
/// - Target delay = quantile of relative delay in the window (arrival − send time, minus the
///   window minimum) + one frame of headroom for playout-tick jitter, clamped to
///   `minDelay...maxDelay`; `initialDelay` is a floor until 50 samples (or `windowSize`) are in.
/// - The applied delay (``JitterBufferStats/playoutDelay``) is moved toward the target one
///   frame at a time: grown with a silence frame at a talkspurt start (a marked packet after a
///   timestamp gap or an underrun, at most once per `adaptationInterval`) or in a DTX gap,
///   with a concealment frame during an underrun; shrunk by skipping a silence frame in a DTX
///   gap (when at least a frame above target). During speech it is moved by time-scale
///   modification (`timeStretch`, ``TimeStretch``): a packet is played stretched while the
///   delay is below a band around the target (as wide as the longest change, half a frame, at
///   most 15 ms) and accelerated while it is above; near the band only quiet frames are
///   changed (by what the delay is off), a frame above it or a band's width below it voiced
///   ones too (by a pitch period). As a fallback, a packet is dropped when the delay has been
///   two frames above target for `shrinkPatience` (without `timeStretch`, a concealment frame is
///   also inserted below target). Frame-level speech adjustments are rate-limited by
///   `adaptationInterval`.
/// - An underrun (nothing buffered) is concealed while the playout clock keeps running; after
///   `maxDelay` of underrun it turns into silence.
/// - SSRC changes resynchronize at once; sequence/timestamp jumps must be confirmed by a second
///   consecutive packet (RFC 3550 A.1) and then resynchronize, as does a run of
///   `maxConsecutiveLate` late packets (the sender's timeline fell behind ours).
/// - A resynchronization flushes what is still buffered (counted as discarded) and buffers
///   afresh from the packet that caused it.
package struct JitterBuffer: Sendable {
    enum Phase: Sendable { case idle, buffering, playing }

    enum SlotState: UInt8, Sendable { case empty, buffered, consumed }

    /// What the last frame out was: a packet's audio (or its concealment), or a pause (a
    /// timestamp gap's silence, the buffer run dry, nothing played yet). Only a marked packet
    /// after a pause starts a talkspurt: some WebRTC stacks mark every packet.
    enum Continuity: Sendable { case speech, pause }

    /// Where a buffered frame came from: its own packet, or a later packet's RFC 2198 block.
    enum Origin: UInt8, Sendable { case packet, redundancy }

    struct Slot: Sendable {
        var seq: Int64 = -1
        var ts: Int64 = 0
        var duration: Int = 0
        var length: Int = 0
        var marker = false
        var state = SlotState.empty
        var origin = Origin.packet
        /// When the packet that brought the frame arrived.
        var arrival = MediaTime.zero
    }

    /// The configuration in force (out-of-range values already clamped).
    package let configuration: JitterBufferConfiguration

    let frameNs: Int64
    /// Width of the band around the target within which time-scale modification leaves the
    /// delay alone: the longest change one frame can make (half a frame, at most 15 ms).
    let stretchMarginNs: Int64
    let minDelayNs: Int64
    let maxDelayNs: Int64
    let initialDelayNs: Int64
    let jumpUnits: Int64
    let maxDelayUnits: Int64
    let warmupSamples: Int

    var slots: [Slot]
    var storage: [UInt8]
    var window: JitterDelayWindow
    var counters = JitterBufferStats()

    var phase = Phase.idle
    var ssrc: UInt32 = 0
    /// Highest extended sequence number stored, and the extended timestamp of that packet.
    var highestSeq: Int64 = 0
    var highestTs: Int64 = 0
    /// Extended timestamp that maps to send time zero.
    var baseTs: Int64 = 0
    /// Lowest buffered sequence number while buffering.
    var headSeq: Int64 = 0
    /// Next sequence number to play, and the timestamp the next output starts at, while playing.
    var nextSeq: Int64 = 0
    var playTs: Int64 = 0
    var lastDuration: Int
    var bufferedCount = 0
    var underrunUnits: Int64 = 0
    var lastAdaptation: MediaTime?
    var continuity = Continuity.pause
    /// Since when the delay has been two frames above target with no silence to shed it in.
    var excessSince: MediaTime?
    var probeSeq: UInt16?
    var consecutiveLate = 0
    var lastTransit: Int64?
    var jitterNs: Double = 0
    var targetNs: Int64
    /// Frames back the peer's RFC 2198 redundancy reaches: the delay is that many frames
    /// longer, so a copy carried by a later packet arrives before its frame's turn.
    package var redundancyFrames = 0
    var playoutDelayNs: Int64 = 0

    /// Creates an empty buffer, allocating all its storage. Out-of-range configuration values
    /// are clamped (see ``JitterBufferConfiguration/validate()``).
    package init(configuration: JitterBufferConfiguration = JitterBufferConfiguration()) {
        let c = configuration.normalized
        self.configuration = c
        let rate = Int64(c.clockRate)
        frameNs = Self.nanoseconds(units: Int64(c.frameDuration), rate: rate)
        stretchMarginNs = min(frameNs / 2, 15_000_000)
        minDelayNs = c.minDelay.nanoseconds
        maxDelayNs = c.maxDelay.nanoseconds
        initialDelayNs = c.initialDelay.nanoseconds
        jumpUnits = max(1, c.maxTimestampJump.nanoseconds / 1_000 * rate / 1_000_000)
        maxDelayUnits = max(1, c.maxDelay.nanoseconds / 1_000 * rate / 1_000_000)
        warmupSamples = min(c.windowSize, 50)
        slots = [Slot](repeating: Slot(), count: c.capacity)
        storage = [UInt8](repeating: 0, count: c.capacity * c.maxPayloadSize)
        window = JitterDelayWindow(size: c.windowSize, quantile: c.quantile)
        lastDuration = c.frameDuration
        targetNs = c.initialDelay.nanoseconds
    }

    /// Forgets every packet, the delay history and all statistics; keeps the storage.
    package mutating func reset() {
        clearStream()
        phase = .idle
        counters = JitterBufferStats()
        targetNs = initialDelayNs
        playoutDelayNs = 0
    }

    /// Current statistics. Not for the per-packet path: it scans the slots.
    package var stats: JitterBufferStats {
        var s = counters
        s.bufferedPackets = bufferedCount
        s.targetDelay = MediaTime(nanoseconds: targetNs)
        s.playoutDelay = MediaTime(nanoseconds: playoutDelayNs)
        s.jitter = MediaTime(nanoseconds: Int64(jitterNs.rounded()))
        s.currentDelay = MediaTime(nanoseconds: bufferedAheadNs)
        return s
    }

    /// RTP timestamp of the next sample to play, or nil before playout has started.
    package var playoutTimestamp: UInt32? {
        phase == .playing ? UInt32(truncatingIfNeeded: playTs) : nil
    }

    var bufferedAheadNs: Int64 {
        guard bufferedCount > 0 else { return 0 }
        let from = phase == .playing ? playTs : slots[index(headSeq)].ts
        var end = from
        var i = 0
        while i < slots.count {  // an index loop: no iterator, so no allocation even unoptimized
            if slots[i].state == .buffered { end = max(end, slots[i].ts + Int64(slots[i].duration)) }
            i += 1
        }
        return nanoseconds(units: end - from)
    }

    // MARK: Helpers shared by insert and playout

    @inline(__always) func index(_ seq: Int64) -> Int {
        let c = Int64(slots.count)
        let r = seq % c
        return Int(r < 0 ? r + c : r)
    }

    @inline(__always) func nanoseconds(units: Int64) -> Int64 {
        Self.nanoseconds(units: units, rate: Int64(configuration.clockRate))
    }

    /// `units / rate` seconds in nanoseconds, without overflowing for long streams.
    static func nanoseconds(units: Int64, rate: Int64) -> Int64 {
        let whole = units / rate
        let rest = units % rate
        return whole * 1_000_000_000 + rest * 1_000_000_000 / rate
    }

    /// Send time of `ts`, on the stream's own clock (nanoseconds since `baseTs`).
    @inline(__always) func sendNs(_ ts: Int64) -> Int64 {
        nanoseconds(units: ts - baseTs)
    }

    /// Drops every packet and timing reference (not counters).
    mutating func clearStream() {
        for i in slots.indices { slots[i].state = .empty }
        bufferedCount = 0
        window.removeAll()
        lastDuration = configuration.frameDuration
        underrunUnits = 0
        lastAdaptation = nil
        continuity = .pause
        excessSince = nil
        probeSeq = nil
        consecutiveLate = 0
        lastTransit = nil
        jitterNs = 0
    }

    /// Recomputes the target delay from the window.
    mutating func refreshTarget() {
        window.refresh()
        var t = initialDelayNs
        if window.count > 0 {
            t = window.quantileValue - window.minimum + frameNs + Int64(redundancyFrames) * frameNs
            if window.count < warmupSamples { t = max(t, initialDelayNs) }
        }
        targetNs = min(maxDelayNs, max(minDelayNs, t))
    }
}
