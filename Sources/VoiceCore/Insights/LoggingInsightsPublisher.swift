import Logging

/// The default ``InsightsPublisher``: writes each event through swift-log, at the event's level
/// mapped to a log level (`debug` → `.debug`, `info` → `.info`, `warning` → `.warning`,
/// `error` → `.error`), with the message `group:name` and metadata `callSid` and `payload` (JSON).
public struct LoggingInsightsPublisher: InsightsPublisher {
    /// The logger events go to.
    public let logger: Logger

    /// Creates a publisher logging to `logger` (by default the `voice.insights` label).
    public init(logger: Logger = Logger(label: "voice.insights")) {
        self.logger = logger
    }

    /// Logs `event`.
    public func publish(_ event: InsightsEvent) {
        let level = LoggingInsightsPublisher.logLevel(for: event.level)
        // Below the logger's level nothing is written: skip building the metadata (the payload's
        // text), which would otherwise cost the signaling loop on every event.
        guard logger.logLevel <= level else { return }
        var metadata: Logger.Metadata = ["group": .string(event.group.rawValue), "event": .string(event.name)]
        if let callSid = event.callSid { metadata["callSid"] = .string(callSid) }
        if !event.payload.isEmpty { metadata["payload"] = .string(InsightsValue.object(event.payload).description) }
        logger.log(level: level, "\(event.qualifiedName)", metadata: metadata)
    }

    /// The swift-log level an Insights level is logged at.
    public static func logLevel(for level: InsightsEventLevel) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .warning: return .warning
        case .error: return .error
        }
    }
}
