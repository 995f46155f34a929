/// Why an RFC 4733 telephone-event payload could not be parsed, built or sent.
package enum TelephoneEventError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The payload is shorter than the 4-byte event block.
    case truncated
    /// The volume is above 63 (it is a 6-bit field).
    case volumeOutOfRange
    /// The character is not a DTMF digit (0-9, *, #, A-D).
    case unknownDigit
    /// The packet interval is zero, or the event duration is zero or above 65535 units.
    case invalidTiming
    /// The destination buffer is smaller than 4 bytes.
    case bufferTooSmall

    /// A human-readable explanation.
    package var description: String {
        switch self {
        case .truncated: "telephone-event payload shorter than 4 bytes"
        case .volumeOutOfRange: "telephone-event volume above 63"
        case .unknownDigit: "not a DTMF digit"
        case .invalidTiming: "telephone-event interval or duration out of range"
        case .bufferTooSmall: "destination buffer too small for a telephone event"
        }
    }
}
