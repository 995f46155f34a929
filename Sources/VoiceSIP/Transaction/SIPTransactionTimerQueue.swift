import VoiceSupport

/// The virtual timer wheel of ``SIPTransactionTable``: one deadline per (transaction, timer),
/// kept in a binary min-heap with lazy deletion. Equal deadlines fire in scheduling order.
struct SIPTransactionTimerQueue: Sendable {
    /// A timer of one transaction.
    struct ID: Hashable, Sendable {
        var key: SIPTransactionKey
        var timer: SIPTransactionTimer
    }

    /// A scheduled firing.
    struct Entry: Sendable {
        var deadline: MediaTime
        var sequence: UInt64
        var id: ID

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    /// The sequence number of the live entry of each scheduled timer; heap entries whose
    /// sequence differs were cancelled or rescheduled.
    private var live: [ID: UInt64] = [:]
    private var nextSequence: UInt64 = 0

    /// Number of running timers.
    var count: Int { live.count }

    /// The earliest deadline, or nil when no timer runs.
    var nextDeadline: MediaTime? { heap.first?.deadline }

    /// Starts `id`, replacing its previous deadline if it was running.
    mutating func schedule(_ id: ID, at deadline: MediaTime) {
        nextSequence &+= 1
        live[id] = nextSequence
        push(Entry(deadline: deadline, sequence: nextSequence, id: id))
        dropStaleTop()
        compactIfSparse()
    }

    /// Stops `id` if it is running.
    mutating func cancel(_ id: ID) {
        guard live.removeValue(forKey: id) != nil else { return }
        dropStaleTop()
        compactIfSparse()
    }

    /// Stops every timer of `key`.
    mutating func cancelAll(for key: SIPTransactionKey) {
        for timer in SIPTransactionTimer.allCases { live.removeValue(forKey: ID(key: key, timer: timer)) }
        dropStaleTop()
        compactIfSparse()
    }

    /// Removes and returns the earliest timer due at or before `now`.
    mutating func popDue(notAfter now: MediaTime) -> Entry? {
        guard let top = heap.first, top.deadline <= now else { return nil }
        removeTop()
        live.removeValue(forKey: top.id)
        dropStaleTop()
        return top
    }

    private func isLive(_ entry: Entry) -> Bool { live[entry.id] == entry.sequence }

    private mutating func dropStaleTop() {
        while let top = heap.first, !isLive(top) { removeTop() }
    }

    /// Rebuilds the heap when cancelled entries outnumber live ones, so it stays O(live).
    private mutating func compactIfSparse() {
        guard heap.count > 64, heap.count > 2 * live.count else { return }
        let entries = heap.filter(isLive)
        heap.removeAll(keepingCapacity: true)
        for entry in entries { push(entry) }
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func removeTop() {
        guard !heap.isEmpty else { return }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { break }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
