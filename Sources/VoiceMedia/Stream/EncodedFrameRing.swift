import Synchronization

/// A single-producer, single-consumer queue of encoded audio frames, lock-free: a conference
/// bridge's clock thread hands a stream the frames it encoded once for many listeners, and the
/// stream's media thread sends them (``StreamDriver``).
///
/// Each frame carries the capture ring's write position when it was queued, so the media
/// thread sends the PCM captured before it first: the two paths into one stream keep their
/// order. Storage is allocated once; a frame that does not fit, or finds the queue full, is
/// refused (the producer then sends PCM and counts it).
package final class EncodedFrameRing: @unchecked Sendable {
    // @unchecked: one writer and one reader, ordered by the atomics, as ``AudioRingBuffer``.
    /// Frames the ring holds.
    package static let slots = 4
    /// The largest payload a slot holds: a 60 ms Opus frame at 200 kbit/s.
    package static let slotCapacity = 1_500

    /// One queued frame.
    package struct Frame {
        /// The encoded payload.
        package let payload: UnsafeRawBufferPointer
        /// 48 kHz samples it encodes.
        package let samples: Int
        /// The frame's peak sample (the stream's input level) and RFC 6464 level.
        package let peak: Int
        package let level: UInt8
        /// The capture ring's write position when it was queued.
        package let pcmPosition: Int
    }

    private let storage: UnsafeMutableRawBufferPointer
    /// Per slot: payload length, samples, peak, PCM position, level (raw memory: both threads touch
    /// it, and an array's copy-on-write check is not safe across threads).
    private let fields: UnsafeMutablePointer<Int>
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)

    package init() {
        storage = .allocate(byteCount: Self.slots * Self.slotCapacity, alignment: 16)
        fields = .allocate(capacity: 5 * Self.slots)
        fields.initialize(repeating: 0, count: 5 * Self.slots)
    }

    deinit {
        storage.deallocate()
        fields.deallocate()
    }

    /// Frames waiting.
    package var count: Int { head.load(ordering: .acquiring) - tail.load(ordering: .acquiring) }

    /// Queues a frame; false if it is too large or the ring is full. Producer thread only.
    package func write(_ payload: UnsafeRawBufferPointer, samples frameSamples: Int, peak: Int, level: UInt8, pcmPosition: Int) -> Bool {
        let h = head.load(ordering: .relaxed)
        guard payload.count <= Self.slotCapacity, h - tail.load(ordering: .acquiring) < Self.slots else { return false }
        let slot = h % Self.slots
        if let source = payload.baseAddress, let base = storage.baseAddress {
            (base + slot * Self.slotCapacity).copyMemory(from: source, byteCount: payload.count)
        }
        fields[5 * slot] = payload.count
        fields[5 * slot + 1] = frameSamples
        fields[5 * slot + 2] = peak
        fields[5 * slot + 3] = pcmPosition
        fields[5 * slot + 4] = Int(level)
        head.store(h + 1, ordering: .releasing)
        return true
    }

    /// The oldest frame, valid until ``removeFirst()``; nil when empty. Consumer thread only.
    package var first: Frame? {
        let t = tail.load(ordering: .relaxed)
        guard head.load(ordering: .acquiring) > t else { return nil }
        let slot = t % Self.slots
        let start = slot * Self.slotCapacity
        return Frame(
            payload: UnsafeRawBufferPointer(rebasing: storage[start..<(start + fields[5 * slot])]),
            samples: fields[5 * slot + 1], peak: fields[5 * slot + 2], level: UInt8(truncatingIfNeeded: fields[5 * slot + 4]),
            pcmPosition: fields[5 * slot + 3])
    }

    /// Drops the oldest frame. Consumer thread only.
    package func removeFirst() {
        let t = tail.load(ordering: .relaxed)
        guard head.load(ordering: .acquiring) > t else { return }
        tail.store(t + 1, ordering: .releasing)
    }

    /// Drops every frame. Consumer thread only.
    package func removeAll() { tail.store(head.load(ordering: .acquiring), ordering: .releasing) }
}
