/// What to render for one playout request; see ``JitterBuffer/nextFrame(at:into:)``.
/// Durations are in RTP clock units.
package enum JitterBufferPlayout: Hashable, Sendable {
    /// A packet's payload (`length` bytes) was copied into the caller's buffer: decode it.
    case packet(length: Int, duration: Int)
    /// A packet's payload was copied in as for ``packet(length:duration:)``: decode it and play
    /// it shortened by time-scale modification (``TimeStretch``), so the delay shrinks. Unless
    /// `urgent`, only a quiet frame (a pause) is changed; when urgent, voiced speech too. `by`
    /// is how far (RTP units) the delay is above target: a quiet frame gives up about that much,
    /// a voiced one its pitch period.
    case accelerate(length: Int, duration: Int, urgent: Bool, by: Int)
    /// A packet's payload was copied in as for ``packet(length:duration:)``: decode it and play
    /// it lengthened by time-scale modification (``TimeStretch``), so the delay grows. Unless
    /// `urgent`, only a quiet frame is changed; when urgent, voiced speech too. `by` is how far
    /// (RTP units) the delay is below target.
    case stretch(length: Int, duration: Int, urgent: Bool, by: Int)
    /// The frame is missing but the next packet is buffered: its payload (`length` bytes) was
    /// copied in; decode its forward error correction data for `duration`.
    case recoverFromNext(length: Int, duration: Int)
    /// The frame is missing (or inserted to grow the delay) and nothing can recover it: run PLC.
    case conceal(duration: Int)
    /// Nothing to play that counts as loss: before the first packet, while buffering, a DTX gap,
    /// a long underrun, or a frame inserted at a talkspurt boundary.
    case silence(duration: Int)

    /// RTP units this output covers (before any time-scale modification).
    package var duration: Int {
        switch self {
        case .packet(_, let d), .accelerate(_, let d, _, _), .stretch(_, let d, _, _), .recoverFromNext(_, let d), .conceal(let d), .silence(let d): d
        }
    }
}
