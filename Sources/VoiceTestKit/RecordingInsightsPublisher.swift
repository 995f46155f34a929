import VoiceCore
import VoiceService
import VoiceSupport

/// An `InsightsPublisher` that keeps every record in memory, for tests: set it as
/// `VoiceServerSettings.insightsPublisher` and assert on what a call published.
/// Safe to use from any thread.
public final class RecordingInsightsPublisher: InsightsPublisher, Sendable {
    private let recorded = Locked<[InsightsRecord]>([])
    private let capacity: Int

    /// Creates an empty recorder that keeps at most `capacity` records (the oldest are dropped).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Stores `record`.
    public func publish(_ record: InsightsRecord) {
        recorded.withLock { records in
            records.append(record)
            if records.count > capacity { records.removeFirst(records.count - capacity) }
        }
    }

    /// The records published so far, oldest first.
    public var records: [InsightsRecord] { recorded.withLock { $0 } }

    /// The typed events behind the records, oldest first (the SDK's own tests).
    package var events: [InsightsEvent] { records.map(\.event) }

    /// `group:name` of each record so far, oldest first (`["connection:ringing", …]`).
    public var qualifiedNames: [String] { records.map { $0.group + ":" + $0.name } }

    /// The typed events of one group, oldest first.
    package func events(in group: InsightsEventGroup) -> [InsightsEvent] {
        events.filter { $0.group == group }
    }

    /// The records of one call, oldest first.
    public func records(forCallSid callSid: String) -> [InsightsRecord] {
        records.filter { $0.callSid == callSid }
    }

    /// The typed events of one call, oldest first.
    package func events(forCallSid callSid: String) -> [InsightsEvent] {
        events.filter { $0.callSid == callSid }
    }

    /// Forgets every record.
    public func removeAll() {
        recorded.withLock { $0.removeAll() }
    }
}
