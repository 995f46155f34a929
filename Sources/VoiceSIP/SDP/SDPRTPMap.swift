/// An `a=rtpmap` value: `<payload type> <encoding name>/<clock rate>[/<channels>]`.
package struct SDPRTPMap: Hashable, Sendable {
    /// RTP payload type, 0...127.
    package var payloadType: UInt8
    /// Encoding name as written, e.g. `opus`, `PCMU`, `telephone-event` (compare case-insensitively).
    package var encodingName: String
    /// RTP clock rate in Hz.
    package var clockRate: Int
    /// Channel count, if given.
    package var channels: Int?

    /// Creates an rtpmap value.
    package init(payloadType: UInt8, encodingName: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    /// Parses the text after `a=rtpmap:`; nil if it is not `<pt> <name>/<rate>[/<channels>]`.
    package init?(parsing text: Substring) {
        var reader = SDPTextReader(text)
        guard let pt = reader.readDecimal(maxDigits: 3), pt <= 127, reader.consumeSpace(),
            let name = reader.readUntil(UInt8(ascii: "/")), !name.isEmpty, !name.contains(" ")
        else { return nil }
        guard let rate = reader.readDecimal(maxDigits: 9), rate > 0 else { return nil }
        var channels: Int?
        if reader.consume(UInt8(ascii: "/")) {
            guard let count = reader.readDecimal(maxDigits: 3), count > 0 else { return nil }
            channels = Int(count)
        }
        guard reader.isAtEnd else { return nil }
        self.init(payloadType: UInt8(pt), encodingName: String(name), clockRate: Int(rate), channels: channels)
    }

    /// The attribute value, as after `a=rtpmap:`.
    package var value: String {
        "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// The static payload types of RFC 3551 that this stack knows, for formats without `a=rtpmap`.
    package static func staticMap(for payloadType: UInt8) -> SDPRTPMap? {
        switch payloadType {
        case 0: SDPRTPMap(payloadType: 0, encodingName: "PCMU", clockRate: 8000, channels: nil)
        case 8: SDPRTPMap(payloadType: 8, encodingName: "PCMA", clockRate: 8000, channels: nil)
        case 9: SDPRTPMap(payloadType: 9, encodingName: "G722", clockRate: 8000, channels: nil)
        case 18: SDPRTPMap(payloadType: 18, encodingName: "G729", clockRate: 8000, channels: nil)
        default: nil
        }
    }
}
