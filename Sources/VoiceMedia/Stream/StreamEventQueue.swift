import Synchronization

/// A bounded, lock-free queue of a stream's events: any number of threads push (the stream's
/// media thread, its device's capture and render threads), one consumer at a time pops.
///
/// Each slot carries a sequence number that says whose turn it is (D. Vyukov's bounded queue):
/// a producer claims a position with one compare-and-swap and publishes the slot by advancing
/// its sequence; the consumer takes it and hands the slot back one lap later. Nothing waits and
/// nothing is allocated after `init`; a push into a full queue fails at once, so the producer
/// can count what it could not queue.
final class StreamEventQueue: @unchecked Sendable {
    // @unchecked: a slot's value is written only by the producer that claimed its position and
    // read only by the consumer after the slot's sequence (acquire/release) says it is there.
    let capacity: Int
    private let mask: Int
    private let sequences: UnsafeMutablePointer<Atomic<Int>>
    private let values: UnsafeMutablePointer<AudioStreamEvent>
    private let enqueuePosition = Atomic<Int>(0)
    private let dequeuePosition = Atomic<Int>(0)

    /// A queue of `minimumCapacity` slots, rounded up to a power of two.
    init(minimumCapacity: Int) {
        var size = 2
        while size < minimumCapacity { size <<= 1 }
        capacity = size
        mask = size - 1
        sequences = .allocate(capacity: size)
        for i in 0..<size { (sequences + i).initialize(to: Atomic(i)) }
        values = .allocate(capacity: size)
    }

    deinit {
        while pop() != nil {}
        sequences.deinitialize(count: capacity)
        sequences.deallocate()
        values.deallocate()
    }

    /// Queues `event`; false when the queue is full (the event is not queued). Never waits.
    func push(_ event: AudioStreamEvent) -> Bool {
        var position = enqueuePosition.load(ordering: .relaxed)
        while true {
            let slot = position & mask
            let sequence = sequences[slot].load(ordering: .acquiring)
            let lap = sequence - position
            if lap == 0 {
                let (exchanged, current) = enqueuePosition.weakCompareExchange(
                    expected: position, desired: position + 1, successOrdering: .relaxed, failureOrdering: .relaxed)
                if exchanged {
                    (values + slot).initialize(to: event)
                    sequences[slot].store(position + 1, ordering: .releasing)
                    return true
                }
                position = current
            } else if lap < 0 {
                return false  // the consumer has not freed this slot yet: full
            } else {
                position = enqueuePosition.load(ordering: .relaxed)
            }
        }
    }

    /// The oldest queued event, or nil when none is ready. One consumer at a time.
    func pop() -> AudioStreamEvent? {
        let position = dequeuePosition.load(ordering: .relaxed)
        let slot = position & mask
        guard sequences[slot].load(ordering: .acquiring) == position + 1 else { return nil }
        let event = (values + slot).move()
        dequeuePosition.store(position + 1, ordering: .relaxed)
        sequences[slot].store(position + capacity, ordering: .releasing)
        return event
    }

    /// Events pushed and not yet popped (a snapshot: producers may be adding meanwhile).
    var count: Int {
        max(0, enqueuePosition.load(ordering: .relaxed) - dequeuePosition.load(ordering: .relaxed))
    }
}
