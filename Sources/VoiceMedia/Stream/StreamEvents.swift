import Dispatch
import Synchronization
import VoiceICE
import VoiceSupport

/// How a stream's events get from the threads that raise them to the app's handler.
///
/// The media thread and the device threads only ``post(_:)``: the event goes into a bounded
/// lock-free queue (``StreamEventQueue``) and, on a threaded engine, a drain is scheduled on the
/// stream's own serial dispatch queue. The handler runs there, in order, and may take whatever
/// locks it likes (the call's loop queue): a producer never waits on it. A full queue counts the
/// event as lost; the next drain reports the count as ``AudioStreamEvent/eventsLost(_:)`` and
/// the stats carry it (``AudioStreamStats/eventsLost``), so nothing is dropped silently.
///
/// On an embedded engine there are no real-time threads: the posting thread (the test's) drains
/// at once, so events arrive within the virtual tick that raised them.
final class StreamEvents: Sendable {
    /// How drains are run.
    enum Delivery: Sendable {
        /// On a serial queue of the stream's own (threaded engines).
        case queue(DispatchQueue)
        /// On the posting thread, at once (embedded engines).
        case inline
    }

    /// Events a stream can hold for a handler that is busy: a burst of telephone events, the
    /// device's and the path's, with room to spare.
    static let capacity = 2_048

    /// The handler, behind the lock the drain takes (never the producers).
    let handler = Locked<(@Sendable (AudioStreamEvent) -> Void)?>(nil)
    /// Who waits for the relay reallocation asked for last, and its request number: the media
    /// thread's answer comes through the queue like any event, so it never calls a
    /// controlling thread's code (or waits on its locks) itself.
    let relayCompletion = Locked<(request: Int, completion: @Sendable ([ICECandidate]) -> Void)?>(nil)
    private let queue: StreamEventQueue
    private let delivery: Delivery
    private let drainScheduled = Atomic<Bool>(false)
    /// Events that found the queue full, and how many of them the handler has been told of.
    private let lost = Atomic<UInt64>(0)
    private let reportedLost = Atomic<UInt64>(0)

    init(delivery: Delivery, capacity: Int = StreamEvents.capacity) {
        self.delivery = delivery
        queue = StreamEventQueue(minimumCapacity: capacity)
    }

    /// Events that could not be queued so far.
    var lostCount: UInt64 { lost.load(ordering: .relaxed) }

    /// Events queued and not yet handed to the handler.
    var pendingCount: Int { queue.count }

    /// Queues `event` for the handler. Never waits: safe on the media and device threads.
    func post(_ event: AudioStreamEvent) {
        if !queue.push(event) { lost.add(1, ordering: .relaxed) }
        switch delivery {
        case .inline:
            drain()
        case .queue(let dispatch):
            // One drain in flight is enough: it runs after this push (the flag is cleared
            // before it pops), so it sees the event.
            if !drainScheduled.exchange(true, ordering: .acquiringAndReleasing) {
                dispatch.async { self.drain() }
            }
        }
    }

    /// Hands every queued event to the handler, in order, then reports any lost since the last
    /// drain. Runs on the delivery queue (or inline on an embedded engine): one at a time.
    func drain() {
        drainScheduled.store(false, ordering: .sequentiallyConsistent)
        let handler = self.handler.withLock { $0 }
        while let event = queue.pop() {
            if case .relayReallocated(let request, let candidates) = event {
                let waiting = relayCompletion.withLock { slot -> (@Sendable ([ICECandidate]) -> Void)? in
                    guard let current = slot, current.request == request else { return nil }
                    slot = nil
                    return current.completion
                }
                waiting?(candidates)
                continue
            }
            handler?(event)
        }
        let lostNow = lost.load(ordering: .relaxed)
        let reported = reportedLost.load(ordering: .relaxed)
        if lostNow > reported {
            reportedLost.store(lostNow, ordering: .relaxed)
            handler?(.eventsLost(lostNow - reported))
        }
    }
}
