/// What ``JitterBuffer/insert(sequenceNumber:timestamp:ssrc:marker:payload:duration:arrival:)``
/// did with a packet.
package enum JitterBufferInsertResult: Hashable, Sendable {
    /// Stored; it will be played (or serve as a recovery source) in order.
    case accepted
    /// Same sequence number already buffered or already played: dropped.
    case duplicate
    /// Its frame was already played, recovered or concealed: dropped. Its delay still trains the estimator.
    case late
    /// The payload exceeds `maxPayloadSize`: dropped.
    case tooLarge
    /// Far outside the expected sequence/timestamp range (or a nonsense duration): dropped.
    /// If the next packet continues from it, the buffer resynchronizes on that one (RFC 3550 A.1).
    case outOfRange
    /// A new SSRC or a confirmed sequence/timestamp jump: the buffer was flushed and restarted
    /// with this packet, which is stored.
    case resynchronized
}
