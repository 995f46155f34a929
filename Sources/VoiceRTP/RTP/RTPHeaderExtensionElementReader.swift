import VoiceBytes
import VoiceSupport
/// Walks the RFC 8285 elements of a header extension without allocating.
///
/// Padding bytes are skipped. In the one-byte form an element with ID 15 (reserved) ends
/// processing, as RFC 8285 §4.2 requires, and so does ID 0 with a non-zero length.
/// The reader borrows the extension data; it must not outlive it.
package struct RTPHeaderExtensionElementReader {
    @usableFromInline var reader: ByteReader
    @usableFromInline let form: RTPHeaderExtensionElement.Form
    @usableFromInline var finished = false

    /// Creates a reader over extension `data` encoded in `form`.
    @inlinable package init(data: UnsafeRawBufferPointer, form: RTPHeaderExtensionElement.Form) {
        self.reader = ByteReader(data)
        self.form = form
    }

    /// The next element, or nil at the end.
    ///
    /// - Throws: ``RTPError/badExtensionElement`` if an element's length runs past the data.
    package mutating func next() throws(RTPError) -> (id: UInt8, data: UnsafeRawBufferPointer)? {
        while !finished {
            guard !reader.isAtEnd else { return nil }
            do throws(ByteReader.Error) {
                let first = try reader.readUInt8()
                switch form {
                case .oneByte:
                    if first == 0 { continue }
                    let id = first >> 4
                    let length = Int(first & 0x0F) + 1
                    if id == 0 || id == 15 {
                        finished = true
                        return nil
                    }
                    return (id, try reader.readBytes(length))
                case .twoByte:
                    if first == 0 { continue }
                    let length = Int(try reader.readUInt8())
                    return (first, try reader.readBytes(length))
                }
            } catch {
                finished = true
                throw .badExtensionElement
            }
        }
        return nil
    }
}

@available(*, unavailable)
extension RTPHeaderExtensionElementReader: Sendable {}
