import Foundation

/// The answer to one command: `{"response":true,"ok":...,"data":"...","token":"..."}`.
package struct BaresipControlResponse: Hashable, Sendable {
    /// Whether baresip ran the command.
    package var ok: Bool
    /// What the command printed (for `listcalls`, `callstat`, `audio_debug`), or the error text.
    package var data: String
    /// The token of the command this answers.
    package var token: String?

    /// Creates a response.
    package init(ok: Bool, data: String, token: String?) {
        self.ok = ok
        self.data = data
        self.token = token
    }
}

/// One JSON object read from the control connection.
package enum BaresipControlMessage: Hashable, Sendable {
    /// The answer to a command.
    case response(BaresipControlResponse)
    /// An event pushed by baresip.
    case event(BaresipControlEvent)

    /// Decodes one netstring payload.
    /// - Throws: ``BaresipControlError/Kind/malformedMessage`` when it is not a JSON object
    ///   marked `"response": true` or `"event": true`.
    package static func decode(_ payload: [UInt8], receivedAt: ContinuousClock.Instant = .now) throws(BaresipControlError) -> Self {
        let object: [String: Any]
        do {
            guard let decoded = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else {
                throw BaresipControlError(.malformedMessage, "not a JSON object: \(preview(payload))")
            }
            object = decoded
        } catch let error as BaresipControlError {
            throw error
        } catch {
            throw BaresipControlError(.malformedMessage, "invalid JSON (\(error)): \(preview(payload))")
        }
        if isTrue(object["response"]) {
            guard let ok = object["ok"] as? Bool else {
                throw BaresipControlError(.malformedMessage, "response without a boolean ok: \(preview(payload))")
            }
            return .response(BaresipControlResponse(ok: ok, data: object["data"] as? String ?? "", token: object["token"] as? String))
        }
        if isTrue(object["event"]) {
            guard let type = object["type"] as? String, !type.isEmpty else {
                throw BaresipControlError(.malformedMessage, "event without a type: \(preview(payload))")
            }
            var fields: [String: String] = [:]
            for (key, value) in object { if let text = value as? String { fields[key] = text } }
            return .event(BaresipControlEvent(type: BaresipEventType(rawValue: type), fields: fields, receivedAt: receivedAt))
        }
        throw BaresipControlError(.malformedMessage, "neither a response nor an event: \(preview(payload))")
    }

    /// `true`, or the string `"true"` that older baresip versions sent.
    private static func isTrue(_ value: Any?) -> Bool {
        if let flag = value as? Bool { return flag }
        return (value as? String) == "true"
    }

    private static func preview(_ payload: [UInt8]) -> String {
        String(decoding: payload.prefix(200), as: UTF8.self)
    }
}
