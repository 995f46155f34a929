import VoiceCore
import VoiceSupport

/// An `InsightsPublisher` that keeps every event in memory, for tests: set it as
/// `VoiceClientConfiguration.insightsPublisher` and assert on the events a call published.
/// Safe to use from any thread.
public final class RecordingInsightsPublisher: InsightsPublisher, Sendable {
    private let recorded = Locked<[InsightsEvent]>([])
    private let capacity: Int

    /// Creates an empty recorder that keeps at most `capacity` events (the oldest are dropped).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Stores `event`.
    public func publish(_ event: InsightsEvent) {
        recorded.withLock { events in
            events.append(event)
            if events.count > capacity { events.removeFirst(events.count - capacity) }
        }
    }

    /// The events published so far, oldest first.
    public var events: [InsightsEvent] { recorded.withLock { $0 } }

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
        recorded.withLock { $0.removeAll() }
    }
}
