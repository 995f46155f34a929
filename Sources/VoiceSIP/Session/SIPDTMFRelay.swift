/// The `application/dtmf-relay` INFO body (`Signal=5\r\nDuration=160\r\n`), the de-facto
/// format for DTMF over SIP INFO.
package struct SIPDTMFRelay: Hashable, Sendable {
    /// The media type.
    package static let contentType = "application/dtmf-relay"
    /// The largest body parsed, in bytes.
    package static let maximumBodySize = 256
    /// The digits a signal may name.
    package static let digits: Set<Character> = Set("0123456789*#ABCD")

    /// The digit: 0–9, `*`, `#`, A–D.
    package var digit: Character
    /// The tone's duration in ms (1 to 60 000).
    package var duration: Int

    /// Creates a payload; nil for a digit outside 0–9 * # A–D or a duration outside 1–60 000 ms.
    package init?(digit: Character, duration: Int) {
        let upper = Character(digit.uppercased())
        guard Self.digits.contains(upper), (1...60_000).contains(duration) else { return nil }
        self.digit = upper
        self.duration = duration
    }

    /// Parses a body. Unknown lines are skipped; `Signal` is required, `Duration` defaults to 250 ms.
    /// `Signal=10` and `Signal=11` are read as `*` and `#`.
    /// - Throws: ``SIPInviteSessionError/malformedBody`` or ``SIPInviteSessionError/bodyTooLarge``.
    package init(parsing body: [UInt8]) throws(SIPInviteSessionError) {
        guard body.count <= Self.maximumBodySize else { throw SIPInviteSessionError.bodyTooLarge.with("dtmf-relay") }
        var reader = SIPTextReader(body)
        var signal: String?
        var duration = 250
        var lines = 0
        while !reader.isAtEnd {
            lines += 1
            guard lines <= 16 else { throw SIPInviteSessionError.malformedBody.with("too many lines") }
            let line = reader.read(while: { $0 != 0x0D && $0 != 0x0A })
            _ = reader.consume(0x0D)
            _ = reader.consume(0x0A)
            var field = SIPTextReader(Array(line))
            let name = String(decoding: SIPGrammar.trim(field.read(upTo: 0x3D)), as: UTF8.self).lowercased()
            guard field.consume(0x3D) else { continue }
            let value = String(decoding: SIPGrammar.trim(field.readRest()), as: UTF8.self)
            switch name {
            case "signal": signal = value
            case "duration":
                guard let ms = Int(value), (1...60_000).contains(ms) else {
                    throw SIPInviteSessionError.malformedBody.with("Duration \(value)")
                }
                duration = ms
            default: continue
            }
        }
        guard let signal else { throw SIPInviteSessionError.malformedBody.with("no Signal") }
        let digit: Character
        switch signal {
        case "10": digit = "*"
        case "11": digit = "#"
        default:
            guard signal.count == 1, let first = signal.first else {
                throw SIPInviteSessionError.malformedBody.with("Signal \(signal)")
            }
            digit = first
        }
        guard let relay = SIPDTMFRelay(digit: digit, duration: duration) else {
            throw SIPInviteSessionError.malformedBody.with("Signal \(signal)")
        }
        self = relay
    }

    /// The body: `Signal=<digit>\r\nDuration=<ms>\r\n`.
    package var body: [UInt8] { Array("Signal=\(digit)\r\nDuration=\(duration)\r\n".utf8) }
}
