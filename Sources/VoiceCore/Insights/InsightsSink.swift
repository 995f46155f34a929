import Logging

/// Where a client's Insights events go: by default its logger, at each event's level; a
/// service hands them to its own publisher (`VoiceServerSettings.insightsPublisher`).
package struct InsightsSink: Sendable {
    /// Takes one event, on the SDK's queues, in event order per call; must return quickly.
    package let publish: @Sendable (InsightsEvent) -> Void

    package init(_ publish: @escaping @Sendable (InsightsEvent) -> Void) {
        self.publish = publish
    }

    /// Logs each event through `logger` at its level, with the message `group:name` and the
    /// metadata `group`, `event`, `callSid` and `payload` (JSON).
    package static func logging(_ logger: Logger) -> InsightsSink {
        InsightsSink { event in
            let level = event.level.logLevel
            // Below the logger's level nothing is written: skip building the metadata.
            guard logger.logLevel <= level else { return }
            var metadata: Logger.Metadata = ["group": .string(event.group.rawValue), "event": .string(event.name)]
            if let callSid = event.callSid { metadata["callSid"] = .string(callSid) }
            if !event.payload.isEmpty { metadata["payload"] = .string(InsightsValue.object(event.payload).description) }
            logger.log(level: level, "\(event.qualifiedName)", metadata: metadata)
        }
    }
}

extension InsightsEventLevel {
    /// The swift-log level of an Insights level.
    package var logLevel: Logger.Level {
        switch self {
        case .debug: return .debug
        case .info: return .info
        case .warning: return .warning
        case .error: return .error
        }
    }
}
