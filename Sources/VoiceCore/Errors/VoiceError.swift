import Foundation

/// An error of the public call API: a Twilio-numbered ``Code``, its short text, a detail, and
/// the SIP status behind it when there was one.
///
/// ```swift
/// func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
///     print(error.code.rawValue, error.localizedDescription, error.failureReason ?? "")
///     // 31600 Busy Everywhere SIP/2.0 600 Call Rejected
/// }
/// ```
public struct VoiceError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What went wrong, with Twilio's numbering.
    public let code: Code
    /// The detail behind the code (e.g. "SIP/2.0 600 Call Rejected"), or nil.
    public let failureReason: String?
    /// The SIP final status that caused the error, when a SIP response did.
    public let sipStatus: Int?

    /// Creates an error.
    public init(_ code: Code, failureReason: String? = nil, sipStatus: Int? = nil) {
        self.code = code
        self.failureReason = failureReason
        self.sipStatus = sipStatus
    }

    /// The short text for ``code`` (e.g. "Busy Everywhere").

    /// The same as ``localizedDescription``, for `LocalizedError`.
    public var errorDescription: String? { code.description }

    /// "31600 Busy Everywhere: SIP/2.0 600 Call Rejected", or without the detail when there is none.
    public var description: String {
        let head = "\(code.rawValue) \(code.description)"
        guard let failureReason, !failureReason.isEmpty else { return head }
        return "\(head): \(failureReason)"
    }
}
