import Foundation

/// An ``InsightsPublisher`` that keeps every event in memory, for tests and diagnostics.
/// Safe to use from any thread.
public final class RecordingInsightsPublisher: InsightsPublisher, @unchecked Sendable {
    // Every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [InsightsEvent] = []
    private let capacity: Int

    /// Creates an empty recorder that keeps at most `capacity` events (the oldest are dropped).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Stores `event`.
    public func publish(_ event: InsightsEvent) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(event)
        if recorded.count > capacity { recorded.removeFirst(recorded.count - capacity) }
    }

    /// The events published so far, oldest first.
    public var events: [InsightsEvent] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// `group:name` of each event so far, oldest first (`["connection:ringing", …]`).
    public var qualifiedNames: [String] { events.map(\.qualifiedName) }

    /// The events of one group, oldest first.
    public func events(in group: InsightsEventGroup) -> [InsightsEvent] {
        events.filter { $0.group == group }
    }

    /// The events of one call, oldest first.
    public func events(forCallSid callSid: String) -> [InsightsEvent] {
        events.filter { $0.callSid == callSid }
    }

    /// Forgets every event.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        recorded.removeAll()
    }
}
