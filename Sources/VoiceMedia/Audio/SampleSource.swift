/// The capture content of a software device (samples, once or looped, or a generator) and its
/// read position.
/// Only the capture pump touches `position` (and
/// `rewind` runs before the pump starts), hence `@unchecked Sendable`.
package final class SampleSource: SoftwareCaptureSource, @unchecked Sendable {
    /// Produces one capture buffer in place. Called on the pacing thread; must not block.
    package typealias Generator = @Sendable (UnsafeMutableBufferPointer<Int16>) -> Void
    package enum Content {
        case samples([Int16], loop: Bool)
        case generator(Generator)
    }
    package let content: Content
    private var position = 0

    package init(content: Content) { self.content = content }

    package func rewind() { position = 0 }

    package func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        switch content {
        case let .generator(generate):
            generate(buffer)
            return true
        case let .samples(samples, loop):
            return samples.withUnsafeBufferPointer { all in
                Self.copy(from: all, position: &position, loop: loop, into: buffer)
            }
        }
    }

    /// Copies from `all` at `position` into `buffer`, wrapping if `loop`, padding with silence otherwise.
    /// Returns false once the end (without loop) is reached.
    static func copy(
        from all: UnsafeBufferPointer<Int16>, position: inout Int, loop: Bool,
        into buffer: UnsafeMutableBufferPointer<Int16>
    ) -> Bool {
        var filled = 0
        while filled < buffer.count {
            if position >= all.count {
                guard loop, !all.isEmpty else { break }
                position = 0
            }
            let n = min(buffer.count - filled, all.count - position)
            for i in 0..<n { buffer[filled + i] = all[position + i] }
            filled += n
            position += n
        }
        if filled < buffer.count {
            for i in filled..<buffer.count { buffer[i] = 0 }
        }
        return loop ? !all.isEmpty : position < all.count
    }
}
