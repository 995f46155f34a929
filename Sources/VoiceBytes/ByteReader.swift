/// A cursor over raw bytes that reads network-order (big-endian) integers and advances.
///
/// Every parser in VoiceMedia reads through this type: no parser indexes a buffer at an
/// absolute offset. Reads past the end throw ``ByteReader/Error/truncated`` and leave the
/// cursor where it was. The reader borrows its bytes; it must not outlive them.
package struct ByteReader {
    /// Why a read failed.
    package enum Error: Swift.Error, Equatable, Sendable {
        /// Fewer bytes remain than the read needs.
        case truncated(needed: Int, remaining: Int)
    }

    @usableFromInline let base: UnsafeRawBufferPointer
    /// Bytes consumed so far, from the start of the buffer handed to `init`.
    @inlinable package var offset: Int { position }
    @usableFromInline var position: Int

    /// Creates a reader over `bytes`, positioned at their first byte.
    @inlinable package init(_ bytes: UnsafeRawBufferPointer) {
        self.base = bytes
        self.position = 0
    }

    /// Bytes left to read.
    @inlinable package var remaining: Int { base.count - offset }
    /// True once every byte has been read.
    @inlinable package var isAtEnd: Bool { offset >= base.count }

    @inlinable mutating func require(_ n: Int) throws(Error) {
        guard n >= 0, n <= remaining else { throw .truncated(needed: n, remaining: remaining) }
    }

    /// Reads one byte.
    @inlinable package mutating func readUInt8() throws(Error) -> UInt8 {
        try require(1)
        let v = base.load(fromByteOffset: offset, as: UInt8.self)
        position += 1
        return v
    }

    /// Reads a big-endian 16-bit integer.
    @inlinable package mutating func readUInt16() throws(Error) -> UInt16 {
        try require(2)
        let v = base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        position += 2
        return UInt16(bigEndian: v)
    }

    /// Reads a big-endian 24-bit integer into the low bits of a `UInt32`.
    @inlinable package mutating func readUInt24() throws(Error) -> UInt32 {
        try require(3)
        let hi = UInt32(try readUInt8())
        let lo = UInt32(try readUInt16())
        return hi << 16 | lo
    }

    /// Reads a big-endian 32-bit integer.
    @inlinable package mutating func readUInt32() throws(Error) -> UInt32 {
        try require(4)
        let v = base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        position += 4
        return UInt32(bigEndian: v)
    }

    /// Reads a big-endian 64-bit integer.
    @inlinable package mutating func readUInt64() throws(Error) -> UInt64 {
        try require(8)
        let v = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        position += 8
        return UInt64(bigEndian: v)
    }

    /// Reads a 16-bit integer in the host's byte order (netlink's, RFC 3549 §2.2).
    @inlinable package mutating func readHostUInt16() throws(Error) -> UInt16 {
        try require(2)
        let v = base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        position += 2
        return v
    }

    /// Reads a 32-bit integer in the host's byte order (netlink's).
    @inlinable package mutating func readHostUInt32() throws(Error) -> UInt32 {
        try require(4)
        let v = base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        position += 4
        return v
    }

    /// Returns the next `count` bytes without copying them and advances past them.
    @inlinable package mutating func readBytes(_ count: Int) throws(Error) -> UnsafeRawBufferPointer {
        try require(count)
        let slice = UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)])
        position += count
        return slice
    }

    /// Advances past `count` bytes.
    @inlinable package mutating func skip(_ count: Int) throws(Error) {
        try require(count)
        position += count
    }

    /// Returns every byte not yet read and moves to the end.
    @inlinable package mutating func readRemaining() -> UnsafeRawBufferPointer {
        let slice = UnsafeRawBufferPointer(rebasing: base[offset...])
        position = base.count
        return slice
    }

    /// The unread bytes, without advancing.
    @inlinable package var rest: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: base[offset...])
    }
}

@available(*, unavailable)
extension ByteReader: Sendable {}
