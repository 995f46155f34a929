import Synchronization
import VoiceSupport

/// A single-producer, single-consumer ring of Int16 samples, lock-free.
///
/// One thread writes and one thread reads, without locks or allocation: the audio device
/// thread on one side and the media engine thread on the other. Storage is allocated once.
package final class AudioRingBuffer: @unchecked Sendable {  // storage is shared by exactly one writer and one reader, ordered by the atomics
    private let storage: UnsafeMutablePointer<Int16>
    private let mask: Int
    /// Total samples the ring can hold.
    package let capacity: Int
    private let head = Atomic<Int>(0)  // next write position (monotonic)
    private let tail = Atomic<Int>(0)  // next read position (monotonic)

    /// Creates a ring holding at least `minimumCapacity` samples (rounded up to a power of two).
    package init(minimumCapacity: Int) {
        var c = 1
        while c < max(2, minimumCapacity) { c <<= 1 }
        capacity = c
        mask = c - 1
        storage = .allocate(capacity: c)
        storage.initialize(repeating: 0, count: c)
    }

    deinit { storage.deallocate() }

    /// Samples waiting to be read.
    package var availableToRead: Int { head.load(ordering: .acquiring) - tail.load(ordering: .acquiring) }
    /// Samples written since the ring was made (monotonic): the position of the next write.
    package var writePosition: Int { head.load(ordering: .acquiring) }
    /// Samples read or discarded since the ring was made (monotonic).
    package var readPosition: Int { tail.load(ordering: .acquiring) }
    /// Free space for the writer.
    package var availableToWrite: Int { capacity - availableToRead }

    /// Writes as many samples as fit; returns how many were written. Producer thread only.
    @discardableResult
    package func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        let n = min(samples.count, capacity - (h - t))
        guard n > 0, let src = samples.baseAddress else { return 0 }
        let start = h & mask
        let first = min(n, capacity - start)
        (storage + start).update(from: src, count: first)
        if n > first { storage.update(from: src + first, count: n - first) }
        head.store(h + n, ordering: .releasing)
        return n
    }

    /// Writes `count` zero samples if they fit; returns how many were written. Producer only.
    @discardableResult
    package func writeSilence(_ count: Int) -> Int {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        let n = min(count, capacity - (h - t))
        guard n > 0 else { return 0 }
        let start = h & mask
        let first = min(n, capacity - start)
        (storage + start).update(repeating: 0, count: first)
        if n > first { storage.update(repeating: 0, count: n - first) }
        head.store(h + n, ordering: .releasing)
        return n
    }

    /// Reads up to `into.count` samples; returns how many were read. Consumer thread only.
    @discardableResult
    package func read(into dst: UnsafeMutableBufferPointer<Int16>) -> Int {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        let n = min(dst.count, h - t)
        guard n > 0, let out = dst.baseAddress else { return 0 }
        let start = t & mask
        let first = min(n, capacity - start)
        out.update(from: storage + start, count: first)
        if n > first { (out + first).update(from: storage, count: n - first) }
        tail.store(t + n, ordering: .releasing)
        return n
    }

    /// Drops up to `count` samples from the read side; returns how many. Consumer only.
    @discardableResult
    package func discard(_ count: Int) -> Int {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        let n = min(count, h - t)
        tail.store(t + max(0, n), ordering: .releasing)
        return max(0, n)
    }
}
