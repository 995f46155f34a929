import Foundation

/// One event reported to Insights: a group and name from the seed's tables, when it happened,
/// which call it belongs to, and a JSON-like payload.
///
/// Build events with the typed constructors (``connection(_:callSid:at:payload:)``,
/// ``connectionError(code:message:callSid:at:sipStatus:)``, ``codec(_:parameters:callSid:at:)``,
/// ``signalingState(_:callSid:at:)``, ``qualityWarning(_:raised:callSid:at:payload:)``,
/// ``feedback(score:issue:callSid:at:)``, …) so group, name and level always match the tables.
package struct InsightsEvent: Hashable, Sendable, CustomStringConvertible {
    /// The group (`connection`, `pc-connection-state`, …).
    package var group: InsightsEventGroup
    /// The event name within the group (`ringing`, `high-rtt`, …).
    package var name: String
    /// Wall-clock time of the event.
    package var timestamp: Date
    /// The call's SID; `nil` before the call has one.
    package var callSid: String?
    /// Severity.
    package var level: InsightsEventLevel
    /// Details: error code and message, codec, warning values, feedback score and issue, ….
    package var payload: [String: InsightsValue]

    /// Creates an event. Prefer the typed constructors, which pick the name and level.
    package init(
        group: InsightsEventGroup, name: String, timestamp: Date, callSid: String?,
        level: InsightsEventLevel = .info, payload: [String: InsightsValue] = [:]
    ) {
        self.group = group
        self.name = name
        self.timestamp = timestamp
        self.callSid = callSid
        self.level = level
        self.payload = payload
    }

    /// `group:name`, the form tests and logs compare (`connection:ringing`).
    package var qualifiedName: String { group.rawValue + ":" + name }

    /// `group:name` followed by the call SID and the payload as JSON.
    package var description: String {
        var text = "\(qualifiedName) [\(level.rawValue)]"
        if let callSid { text += " sid=\(callSid)" }
        if !payload.isEmpty { text += " " + InsightsValue.object(payload).description }
        return text
    }
}
