/// Serial-number arithmetic (RFC 1982) for RTP sequence numbers and timestamps.
package enum RTPSerialNumber: Sendable {
    /// True when sequence number `a` comes after `b`, allowing for wrap-around.
    ///
    /// Values exactly half the space apart are ordered by plain comparison so the answer is
    /// never true both ways.
    @inlinable package static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        let diff = a &- b
        if diff == 0x8000 { return a > b }
        return diff != 0 && diff < 0x8000
    }

    /// True when timestamp `a` comes after `b`, allowing for wrap-around.
    @inlinable package static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        let diff = a &- b
        if diff == 0x8000_0000 { return a > b }
        return diff != 0 && diff < 0x8000_0000
    }

    /// The signed distance from `b` to `a` (positive when `a` is newer), in -32768...32767.
    @inlinable package static func distance(from b: UInt16, to a: UInt16) -> Int {
        Int(Int16(bitPattern: a &- b))
    }

    /// The signed distance from `b` to `a` (positive when `a` is newer).
    @inlinable package static func distance(from b: UInt32, to a: UInt32) -> Int64 {
        Int64(Int32(bitPattern: a &- b))
    }
}
