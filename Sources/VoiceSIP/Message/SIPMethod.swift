/// A SIP request method; extensible, compared case-sensitively (RFC 3261 §7.1).
package struct SIPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method name as on the wire.
    package let rawValue: String

    /// Creates a method; returns nil unless `rawValue` is a non-empty token of at most 64 bytes.
    package init?(_ rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 64, rawValue.utf8.allSatisfy(SIPGrammar.isToken) else { return nil }
        self.rawValue = rawValue
    }

    private init(known: String) { rawValue = known }

    package var description: String { rawValue }

    /// INVITE
    package static let invite = SIPMethod(known: "INVITE")
    /// ACK
    package static let ack = SIPMethod(known: "ACK")
    /// BYE
    package static let bye = SIPMethod(known: "BYE")
    /// CANCEL
    package static let cancel = SIPMethod(known: "CANCEL")
    /// REGISTER
    package static let register = SIPMethod(known: "REGISTER")
    /// OPTIONS
    package static let options = SIPMethod(known: "OPTIONS")
    /// INFO (RFC 6086)
    package static let info = SIPMethod(known: "INFO")
    /// UPDATE (RFC 3311)
    package static let update = SIPMethod(known: "UPDATE")
    /// PRACK (RFC 3262)
    package static let prack = SIPMethod(known: "PRACK")
    /// SUBSCRIBE (RFC 6665)
    package static let subscribe = SIPMethod(known: "SUBSCRIBE")
    /// NOTIFY (RFC 6665)
    package static let notify = SIPMethod(known: "NOTIFY")
    /// REFER (RFC 3515)
    package static let refer = SIPMethod(known: "REFER")
    /// MESSAGE (RFC 3428)
    package static let message = SIPMethod(known: "MESSAGE")
    /// PUBLISH (RFC 3903)
    package static let publish = SIPMethod(known: "PUBLISH")
}
