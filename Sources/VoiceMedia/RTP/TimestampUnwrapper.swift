/// Extends 32-bit RTP timestamps to a monotonic 64-bit count across wrap-arounds.
///
/// Same rules as ``SequenceNumberUnwrapper``, with a ±2³¹ window. Pure value type.
public struct TimestampUnwrapper: Hashable, Sendable {
    /// The highest extended value returned so far, or nil before the first call.
    @inlinable public var highest: Int64? { last }
    @usableFromInline var last: Int64?

    /// Creates an unwrapper that has seen nothing.
    public init() {}

    /// Returns the extended value of `timestamp` and remembers it if it is the newest.
    @inlinable public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let highest = last else {
            last = Int64(timestamp)
            return Int64(timestamp)
        }
        let delta = Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: highest))
        let value = highest + Int64(delta)
        if value > highest { last = value }
        return value
    }
}
