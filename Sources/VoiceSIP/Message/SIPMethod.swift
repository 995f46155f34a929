/// A SIP request method; extensible, compared case-sensitively (RFC 3261 §7.1).
public struct SIPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method name as on the wire.
    public let rawValue: String

    /// Creates a method; returns nil unless `rawValue` is a non-empty token of at most 64 bytes.
    public init?(_ rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 64, rawValue.utf8.allSatisfy(SIPGrammar.isToken) else { return nil }
        self.rawValue = rawValue
    }

    private init(known: String) { rawValue = known }

    public var description: String { rawValue }

    /// INVITE
    public static let invite = SIPMethod(known: "INVITE")
    /// ACK
    public static let ack = SIPMethod(known: "ACK")
    /// BYE
    public static let bye = SIPMethod(known: "BYE")
    /// CANCEL
    public static let cancel = SIPMethod(known: "CANCEL")
    /// REGISTER
    public static let register = SIPMethod(known: "REGISTER")
    /// OPTIONS
    public static let options = SIPMethod(known: "OPTIONS")
    /// INFO (RFC 6086)
    public static let info = SIPMethod(known: "INFO")
    /// UPDATE (RFC 3311)
    public static let update = SIPMethod(known: "UPDATE")
    /// PRACK (RFC 3262)
    public static let prack = SIPMethod(known: "PRACK")
    /// SUBSCRIBE (RFC 6665)
    public static let subscribe = SIPMethod(known: "SUBSCRIBE")
    /// NOTIFY (RFC 6665)
    public static let notify = SIPMethod(known: "NOTIFY")
    /// REFER (RFC 3515)
    public static let refer = SIPMethod(known: "REFER")
    /// MESSAGE (RFC 3428)
    public static let message = SIPMethod(known: "MESSAGE")
    /// PUBLISH (RFC 3903)
    public static let publish = SIPMethod(known: "PUBLISH")
}
