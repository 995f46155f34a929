/// A cursor that writes network-order (big-endian) integers into caller-owned memory.
///
/// Writers never allocate: they fill the buffer handed to `init` and throw
/// ``ByteWriter/Error/overflow`` when it is too small, leaving the cursor unchanged.
package struct ByteWriter {
    /// Why a write failed.
    package enum Error: Swift.Error, Equatable, Sendable {
        /// The destination has fewer free bytes than the write needs.
        case overflow(needed: Int, available: Int)
    }

    @usableFromInline let base: UnsafeMutableRawBufferPointer
    /// Bytes written so far.
    @inlinable package var offset: Int { position }
    @usableFromInline var position: Int

    /// Creates a writer positioned at the first byte of `buffer`.
    @inlinable package init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.base = buffer
        self.position = 0
    }

    /// Free bytes left.
    @inlinable package var available: Int { base.count - offset }

    @inlinable mutating func require(_ n: Int) throws(Error) {
        guard n >= 0, n <= available else { throw .overflow(needed: n, available: available) }
    }

    /// Writes one byte.
    @inlinable package mutating func write(_ v: UInt8) throws(Error) {
        try require(1)
        base.storeBytes(of: v, toByteOffset: offset, as: UInt8.self)
        position += 1
    }

    /// Writes a big-endian 16-bit integer.
    @inlinable package mutating func write(_ v: UInt16) throws(Error) {
        try require(2)
        base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt16.self)
        position += 2
    }

    /// Writes a big-endian 32-bit integer.
    @inlinable package mutating func write(_ v: UInt32) throws(Error) {
        try require(4)
        base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt32.self)
        position += 4
    }

    /// Writes a big-endian 64-bit integer.
    @inlinable package mutating func write(_ v: UInt64) throws(Error) {
        try require(8)
        base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt64.self)
        position += 8
    }

    /// Writes a 16-bit integer in the host's byte order (netlink's).
    @inlinable package mutating func writeHost(_ v: UInt16) throws(Error) {
        try require(2)
        base.storeBytes(of: v, toByteOffset: offset, as: UInt16.self)
        position += 2
    }

    /// Writes a 32-bit integer in the host's byte order (netlink's).
    @inlinable package mutating func writeHost(_ v: UInt32) throws(Error) {
        try require(4)
        base.storeBytes(of: v, toByteOffset: offset, as: UInt32.self)
        position += 4
    }

    /// Copies `bytes` in.
    @inlinable package mutating func write(bytes: UnsafeRawBufferPointer) throws(Error) {
        try require(bytes.count)
        if bytes.count > 0, let src = bytes.baseAddress, let dst = base.baseAddress {
            (dst + offset).copyMemory(from: src, byteCount: bytes.count)
        }
        position += bytes.count
    }

    /// Writes `count` zero bytes.
    @inlinable package mutating func writeZeros(_ count: Int) throws(Error) {
        try require(count)
        if count > 0, let dst = base.baseAddress { (dst + offset).initializeMemory(as: UInt8.self, repeating: 0, count: count) }
        position += count
    }

    /// Overwrites a big-endian 16-bit integer at an earlier position (for length fields).
    @inlinable package mutating func patch(_ v: UInt16, at position: Int) throws(Error) {
        guard position >= 0, position + 2 <= offset else { throw .overflow(needed: 2, available: 0) }
        base.storeBytes(of: v.bigEndian, toByteOffset: position, as: UInt16.self)
    }
}

@available(*, unavailable)
extension ByteWriter: Sendable {}
