import Foundation

/// A key the far end pressed (DTMF), reported once per press through
/// ``CallDelegate/call(_:didReceiveDigit:)`` and ``CallEvent/digitReceived(_:)``, in the order
/// the keys were pressed.
///
/// Digits arrive as RFC 4733 telephone-events in the call's audio (when both sides offered
/// `telephone-event`) or as SIP INFO requests with an `application/dtmf-relay` body. A peer
/// that sends both for one press is reported once.
public struct CallDigit: Sendable, Hashable, CustomStringConvertible {
    /// How a digit reached the call.
    public enum Transport: Sendable, Hashable {
        /// An RFC 4733 telephone-event in the call's media.
        case rtpEvent
        /// A SIP INFO request carrying `application/dtmf-relay`.
        case sipInfo
    }

    /// The key: `0`–`9`, `*`, `#` or `A`–`D`.
    public let digit: Character
    /// How long the key was held, as the peer reported it (an INFO without a `Duration` reads
    /// as 0.25 s, the format's default).
    public let duration: TimeInterval
    /// How it came.
    public let transport: Transport

    package init(digit: Character, duration: TimeInterval, transport: Transport) {
        self.digit = digit
        self.duration = duration
        self.transport = transport
    }

    public var description: String {
        "\(digit) (\(Int((duration * 1_000).rounded())) ms, \(transport == .rtpEvent ? "RFC 4733" : "SIP INFO"))"
    }
}
