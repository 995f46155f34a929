import Foundation

/// A user-defined message exchanged during a call or a call invite (Twilio's `TVOCallMessage`),
/// sent as a SIP INFO.
///
/// On the wire the INFO's body is ``content`` with ``contentType``, and two header fields carry
/// the message's identity, so the receiver's `call(_:didReceiveMessage:)` sees the same
/// ``voiceEventSid`` and ``messageType`` the sender got back from `sendMessage`:
/// `X-Twilio-VoiceEventSid` and `X-Twilio-MessageType`. An INFO without them (e.g. from another
/// SIP user agent) is received with a fresh SID and the type "user-defined-message".
public struct CallMessage: Sendable, Equatable {
    /// Limit on the content, in bytes (10 KB).
    package static let maximumContentLength = 10 * 1024
    /// The default content type.
    package static let defaultContentType = "application/json"
    /// The default (and only Twilio-defined) message type.
    package static let defaultMessageType = "user-defined-message"
    /// The prefix of a message's ``voiceEventSid``.
    package static let sidPrefix = "KX"
    /// The INFO header field carrying ``voiceEventSid``.
    package static let voiceEventSidHeader = "X-Twilio-VoiceEventSid"
    /// The INFO header field carrying ``messageType``.
    package static let messageTypeHeader = "X-Twilio-MessageType"

    /// The message body.
    public var content: String
    /// The body's MIME type; "application/json" by default.
    public var contentType: String
    /// The message type; "user-defined-message" by default.
    public var messageType: String
    /// A unique identifier for tracking the message: `KX` + 32 lowercase hex digits.
    /// `Call.sendMessage(_:)` returns it.
    public var voiceEventSid: String

    /// Creates a message with a fresh ``voiceEventSid``: JSON of Twilio's `user-defined-message`
    /// type by default, at most 10 KiB of content.
    public init(content: String, contentType: String = "application/json", messageType: String = "user-defined-message") {
        self.init(content: content, contentType: contentType, messageType: messageType, voiceEventSid: Self.makeSid())
    }

    /// Creates a message with a given identifier (e.g. one received).
    package init(content: String, contentType: String, messageType: String, voiceEventSid: String) {
        self.content = content
        self.contentType = contentType
        self.messageType = messageType
        self.voiceEventSid = voiceEventSid
    }

    /// Checks that the message may be sent: content at most ``maximumContentLength`` bytes
    /// and a content type, message type and SID with no control characters and not empty. Fails
    /// with 31100 ``VoiceError/Code/malformedRequest``, reported through
    /// `didFailToSendMessage`. (Whether the content matches its type is the receiver's concern.)
    package func validateForSending() throws(VoiceError) {
        let size = content.utf8.count
        guard size <= Self.maximumContentLength else {
            throw VoiceError(
                .malformedRequest,
                failureReason: "The message content is \(size) bytes; the limit is \(Self.maximumContentLength)")
        }
        for (label, text) in [("content type", contentType), ("message type", messageType), ("SID", voiceEventSid)] {
            guard !text.isEmpty, !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw VoiceError(.malformedRequest, failureReason: "The message \(label) is empty or has control characters")
            }
        }
    }

    static func makeSid() -> String {
        let hex = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return sidPrefix + hex
    }
}
