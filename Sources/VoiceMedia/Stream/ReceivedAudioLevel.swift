import Synchronization

/// The newest RFC 6464 audio level a stream's peer announced in its packets' header extension
/// (−dBov: 0 loudest … 127 silence), and how many packets have carried one: the media thread
/// publishes, anyone reads, nobody waits (one atomic word).
package final class ReceivedAudioLevel: Sendable {
    /// Count in the high 56 bits, level in the low 8; 0 before the first.
    private let packed = Atomic<UInt64>(0)

    package init() {}

    /// Media thread: a packet carried `level`.
    package func publish(_ level: UInt8) {
        let count = (packed.load(ordering: .relaxed) >> 8) &+ 1
        packed.store(count << 8 | UInt64(level & 0x7F), ordering: .releasing)
    }

    /// The packets that carried a level so far, and the newest level (nil before the first).
    package func read() -> (count: UInt64, level: Int?) {
        let value = packed.load(ordering: .acquiring)
        let count = value >> 8
        return (count, count == 0 ? nil : Int(value & 0xFF))
    }
}
