import Logging
import VoiceCore

/// The default ``InsightsPublisher``: writes each event through swift-log at its level, with the
/// message `group:name` and metadata `group`, `event`, `callSid` and `payload` (JSON).
public struct LoggingInsightsPublisher: InsightsPublisher {
    /// The logger events go to.
    public let logger: Logger

    /// Creates a publisher logging to `logger` (by default the `voice.insights` label).
    public init(logger: Logger = Logger(label: "voice.insights")) {
        self.logger = logger
    }

    /// Logs `record`.
    public func publish(_ record: InsightsRecord) {
        guard logger.logLevel <= record.level else { return }
        var metadata: Logger.Metadata = ["group": .string(record.group), "event": .string(record.name)]
        if let callSid = record.callSid { metadata["callSid"] = .string(callSid) }
        if !record.event.payload.isEmpty { metadata["payload"] = .string(String(decoding: record.payload, as: UTF8.self)) }
        logger.log(level: record.level, "\(record.group):\(record.name)", metadata: metadata)
    }
}
