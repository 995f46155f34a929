import Logging
import VoiceCore

/// An ``InsightsPublisher`` that writes each event through swift-log at its level, with the
/// message `group:name` and metadata `group`, `event`, `callSid` and `payload` (JSON): what a
/// client without a publisher does with its own logger, to a logger of the app's choosing.
public struct LoggingInsightsPublisher: InsightsPublisher {
    /// The logger events go to.
    public let logger: Logger
    private let sink: InsightsSink

    /// Creates a publisher logging to `logger` (by default the `voice.insights` label).
    public init(logger: Logger = Logger(label: "voice.insights")) {
        self.logger = logger
        sink = .logging(logger)
    }

    /// Logs `record`.
    public func publish(_ record: InsightsRecord) { sink.publish(record.event) }
}
