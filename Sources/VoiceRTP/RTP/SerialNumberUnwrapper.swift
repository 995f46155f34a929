/// Extends wrapping serial numbers (RFC 1982) to a monotonic 64-bit count: RTP sequence numbers
/// (`UInt16`, ``SequenceNumberUnwrapper``) and timestamps (`UInt32`, ``TimestampUnwrapper``).
///
/// Each value is placed within half the word's range of the highest value seen, so packets
/// reordered across a wrap (65535 arriving after 0) unwrap to the earlier cycle. The first value
/// unwraps to itself; a packet older than it can unwrap to a negative number. Pure value type.
package struct SerialNumberUnwrapper<Word: FixedWidthInteger & UnsignedInteger & Sendable>: Hashable, Sendable {
    /// The highest extended value returned so far, or nil before the first call.
    @inlinable package var highest: Int64? { last }
    @usableFromInline var last: Int64?

    /// Creates an unwrapper that has seen nothing.
    package init() {}

    /// Returns the extended value of `value` and remembers it if it is the newest.
    @inlinable package mutating func unwrap(_ value: Word) -> Int64 {
        guard let highest = last else {
            last = Int64(value)
            return Int64(value)
        }
        let extended = Self.extend(value, near: highest)
        if extended > highest { last = extended }
        return extended
    }

    /// `value` extended to the 64-bit number nearest `reference` (half the word's range before
    /// it to just under half after; exactly half a range away counts as before).
    @inlinable package static func extend(_ value: Word, near reference: Int64) -> Int64 {
        let distance = value &- Word(truncatingIfNeeded: reference)
        let half = Word(1) << (Word.bitWidth - 1)
        return reference + (distance < half ? Int64(distance) : Int64(distance) - (Int64(1) << Word.bitWidth))
    }
}

/// RTP sequence numbers extended across wrap-arounds (±2¹⁵).
package typealias SequenceNumberUnwrapper = SerialNumberUnwrapper<UInt16>
/// RTP timestamps extended across wrap-arounds (±2³¹).
package typealias TimestampUnwrapper = SerialNumberUnwrapper<UInt32>
