/// The pacing of a digit string, one step at a time, shared by the two ways digits travel:
/// RFC 4733 telephone events on the media path and SIP INFO (`application/dtmf-relay`).
///
/// Each digit is a 100 ms tone followed by a 60 ms gap (as pjsip and baresip send them); `w`
/// (or `W`) is a 500 ms pause. Pure value: the sender asks for the next step when the last one
/// is over.
package struct DTMFSequence: Sendable {
    /// What to send now.
    package enum Step: Equatable, Sendable {
        /// A tone for `digit` lasting `milliseconds`.
        case tone(Character, milliseconds: Int)
        /// Nothing for `milliseconds` (the gap after a tone, or a `w`).
        case silence(milliseconds: Int)
    }

    package static let toneMilliseconds = 100
    package static let gapMilliseconds = 60
    package static let pauseMilliseconds = 500

    private var digits: [Character]
    private var index = 0
    private var gapDue = false

    /// A sequence for `digits` (`0`–`9`, `*`, `#`, `A`–`D`, `w` pauses; validated by the caller).
    package init(_ digits: [Character] = []) {
        self.digits = digits
    }

    /// True once every step has been taken.
    package var isFinished: Bool { !gapDue && index == digits.count }

    /// The next step, or nil when the sequence is over.
    /// Queues more digits after those not yet sent.
    package mutating func append(_ more: [Character]) {
        digits.append(contentsOf: more)
    }

    package mutating func next() -> Step? {
        if gapDue {
            gapDue = false
            return .silence(milliseconds: Self.gapMilliseconds)
        }
        guard index < digits.count else { return nil }
        let digit = digits[index]
        index += 1
        if digit == "w" || digit == "W" { return .silence(milliseconds: Self.pauseMilliseconds) }
        gapDue = true
        return .tone(digit, milliseconds: Self.toneMilliseconds)
    }
}
