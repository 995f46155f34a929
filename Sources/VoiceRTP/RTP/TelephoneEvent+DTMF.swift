extension TelephoneEvent {
    /// The RFC 4733 §3.2 event code of a DTMF digit: "0"-"9" → 0-9, "*" → 10, "#" → 11,
    /// "A"-"D" (either case) → 12-15; nil for anything else.
    package static func dtmfEvent(for digit: Character) -> UInt8? {
        switch digit {
        case "0"..."9": digit.asciiValue.map { $0 - 48 }
        case "*": 10
        case "#": 11
        case "A"..."D": digit.asciiValue.map { $0 - 65 + 12 }
        case "a"..."d": digit.asciiValue.map { $0 - 97 + 12 }
        default: nil
        }
    }

    /// The DTMF digit for an event code 0-15 ("A"-"D" upper case), or nil for other codes.
    package static func dtmfDigit(for event: UInt8) -> Character? {
        switch event {
        case 0...9: Character(Unicode.Scalar(48 + event))
        case 10: "*"
        case 11: "#"
        case 12...15: Character(Unicode.Scalar(65 + event - 12))
        default: nil
        }
    }

    /// The DTMF digit this block carries, if its event is 0-15.
    package var dtmfDigit: Character? { Self.dtmfDigit(for: event) }
}
