import VoiceSupport
/// Counters and delay figures of a ``JitterBuffer``. Counters are cumulative since `init` or
/// ``JitterBuffer/reset()``; resynchronizations keep them.
package struct JitterBufferStats: Hashable, Sendable {
    /// Media buffered ahead of the playout position (end of the newest buffered packet minus
    /// the next timestamp to play); zero when nothing is buffered.
    package var currentDelay: MediaTime = .zero
    /// The delay the buffer steers toward: quantile of relative packet delay plus one frame,
    /// clamped to `minDelay...maxDelay`.
    package var targetDelay: MediaTime = .zero
    /// How long the earliest-arriving packets of the window wait before playout, as of the last
    /// playout request: the delay actually applied, compared with ``targetDelay``.
    package var playoutDelay: MediaTime = .zero
    /// RFC 3550 interarrival jitter estimate.
    package var jitter: MediaTime = .zero
    /// Packets currently stored.
    package var bufferedPackets: Int = 0
    /// Packets handed to `insert`, whatever the outcome.
    package var received: Int = 0
    /// Duplicates dropped.
    package var duplicates: Int = 0
    /// Packets dropped because their frame had already gone out.
    package var late: Int = 0
    /// Packets refused for an oversize payload.
    package var tooLarge: Int = 0
    /// Packets refused as far out of range.
    package var outOfRange: Int = 0
    /// Buffered packets thrown away: to shrink the delay, on overflow, on a flush, or because the
    /// caller's buffer was too small.
    package var discarded: Int = 0
    /// Packets played out.
    package var playedPackets: Int = 0
    /// Media units (RTP clock) of the frames played from packets, and the sum over them of how
    /// long each waited between its packet's arrival and its playout, in seconds per unit:
    /// W3C `jitterBufferEmittedCount` and `jitterBufferDelay`, at the RTP clock.
    package var emittedUnits: Int = 0
    package var emittedDelay: Double = 0
    /// Frames reported as ``JitterBufferPlayout/conceal(duration:)`` for packets known to be
    /// missing (a later packet is buffered).
    package var concealedFrames: Int = 0
    /// Frames reported as ``JitterBufferPlayout/conceal(duration:)`` because nothing was
    /// buffered: late packets, a DTX pause or the end of the stream; not counted as loss.
    package var underrunFrames: Int = 0
    /// Frames reported as ``JitterBufferPlayout/recoverFromNext(length:duration:)``.
    package var recoveredFrames: Int = 0
    /// Frames reported as ``JitterBufferPlayout/silence(duration:)``.
    package var silenceFrames: Int = 0
    /// Frames inserted (as silence or concealment) to grow the delay.
    package var insertedFrames: Int = 0
    /// Frames removed (a silence frame skipped or a packet dropped) to shrink the delay.
    package var removedFrames: Int = 0
    /// Packets handed out to be played shortened, to shrink the delay
    /// (``JitterBufferPlayout/accelerate(length:duration:urgent:by:)``). A request, not a result:
    /// a frame that cannot be shortened plays whole (the stream counts the samples really removed).
    package var acceleratedFrames: Int = 0
    /// Packets handed out to be played lengthened, to grow the delay
    /// (``JitterBufferPlayout/stretch(length:duration:urgent:by:)``); a request, like ``acceleratedFrames``.
    package var stretchedFrames: Int = 0
    /// Frames played from a later packet's RFC 2198 redundancy: their own packet never came
    /// in time. And the redundant copies not needed: the frame was already buffered or played,
    /// its own packet arrived after the copy (reordering), or its turn had gone.
    package var recoveredByRedundancy: Int = 0
    package var redundantDuplicates: Int = 0
    package var redundantLate: Int = 0
    /// Times the buffer flushed and restarted (SSRC change or confirmed jump).
    package var resyncs: Int = 0
    /// Of ``resyncs``, those caused by a new SSRC.
    package var ssrcChanges: Int = 0

    /// Creates zeroed statistics.
    package init() {}
}
