/// Extends 16-bit RTP sequence numbers to a monotonic 64-bit count across wrap-arounds.
///
/// Each value is placed within ±32768 of the highest value seen, so packets reordered across
/// a wrap (65535 arriving after 0) unwrap to the earlier cycle. The first value unwraps to
/// itself; a packet older than it can unwrap to a negative number. Pure value type.
public struct SequenceNumberUnwrapper: Hashable, Sendable {
    /// The highest extended value returned so far, or nil before the first call.
    @inlinable public var highest: Int64? { last }
    @usableFromInline var last: Int64?

    /// Creates an unwrapper that has seen nothing.
    public init() {}

    /// Returns the extended value of `sequenceNumber` and remembers it if it is the newest.
    @inlinable public mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        guard let highest = last else {
            last = Int64(sequenceNumber)
            return Int64(sequenceNumber)
        }
        let delta = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: highest))
        let value = highest + Int64(delta)
        if value > highest { last = value }
        return value
    }
}
