/// The SIP user agent: messages, transports, transactions, dialogs, INVITE sessions,
/// registration and SDP offer/answer (RFC 3261, 3264, 4566, 4568).
package enum VoiceSIP {
    /// The User-Agent / Server header value this stack sends.
    package static let userAgent = "VoiceSDK/\(version)"
    /// The stack's version.
    package static let version = "0.1.0"
}
