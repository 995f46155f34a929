import Foundation
import Logging
import VoiceCore

/// One Insights event as a publisher receives it: the group and name of Twilio's Insights tables
/// (`connection` / `ringing`, `network-quality-warning-raised` / `high-rtt`, …), its level and
/// time, the call it belongs to, and its details as a JSON object.
public struct InsightsRecord: Sendable, Hashable, CustomStringConvertible {
    /// The group (`connection`, `pc-connection-state`, …).
    public let group: String
    /// The event's name within the group (`ringing`, `high-rtt`, …).
    public let name: String
    /// Severity, as swift-log names it (`.debug`, `.info`, `.warning`, `.error`).
    public let level: Logger.Level
    /// Wall-clock time of the event.
    public let timestamp: Date
    /// The call's SID; nil before the call has one.
    public let callSid: String?
    /// The details (error code and message, codec, warning values, feedback, …): a JSON object,
    /// UTF-8; `{}` when there are none.
    public let payload: Data

    /// The typed event behind the record, for the SDK's own tests.
    package let event: InsightsEvent

    package init(_ event: InsightsEvent) {
        self.event = event
        group = event.group.rawValue
        name = event.name
        level = event.level.logLevel
        timestamp = event.timestamp
        callSid = event.callSid
        payload = Data(InsightsValue.object(event.payload).description.utf8)
    }

    /// `group:name`, the call SID and the payload.
    public var description: String { event.description }
}

extension InsightsPublisher {
    /// Publishes a typed event as its record.
    package func publish(_ event: InsightsEvent) { publish(InsightsRecord(event)) }

    /// The publisher as a client's sink of events.
    package var sink: InsightsSink { InsightsSink { self.publish(InsightsRecord($0)) } }
}

extension VoiceClientConfiguration {
    /// Sends the client's Insights events to `publisher` instead of its logger.
    package mutating func publishInsights(to publisher: any InsightsPublisher) {
        insightsSink = publisher.sink
    }
}
