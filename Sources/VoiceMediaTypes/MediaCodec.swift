/// An audio codec a media stream can negotiate. The stream itself always works in 48 kHz mono
/// Int16 frames; encoders and decoders made from a codec convert to and from the wire format.
package enum MediaCodec: Hashable, Sendable, CustomStringConvertible {
    /// Opus (RFC 6716, RTP mapping RFC 7587), with its encoder settings.
    case opus(OpusSettings)
    /// G.722 (ITU-T G.722 at 64 kbit/s): 16 kHz wideband audio whose RTP clock is nevertheless
    /// 8 kHz (RFC 3551 §4.5.2 keeps the rate the first specification wrote by mistake), static
    /// payload type 9.
    case g722
    /// G.711 μ-law, 8 kHz.
    case pcmu
    /// G.711 A-law, 8 kHz.
    case pcma

    /// The stream frame rate: 48 kHz.
    package static let streamSampleRate = 48_000
    /// Packetization times (ms) the stream supports.
    package static let supportedPtimes: [Int] = [10, 20, 40, 60]

    /// The encoding name as written in SDP `a=rtpmap` ("opus", "G722", "PCMU", "PCMA").
    package var name: String {
        switch self {
        case .opus: "opus"
        case .g722: "G722"
        case .pcmu: "PCMU"
        case .pcma: "PCMA"
        }
    }

    /// The RTP payload type to offer: 0, 8 and 9 are static (RFC 3551); Opus is dynamic, 111 by convention.
    package var defaultPayloadType: UInt8 {
        switch self {
        case .opus: 111
        case .g722: 9
        case .pcmu: 0
        case .pcma: 8
        }
    }

    /// The RTP timestamp clock rate: 48 000 for Opus (whatever the coded bandwidth), 8 000 for
    /// G.711, and 8 000 for G.722 too, though it samples at 16 kHz (one tick per payload byte).
    package var rtpClockRate: Int {
        switch self {
        case .opus: 48_000
        case .g722, .pcmu, .pcma: 8_000
        }
    }

    /// The channel count written in `a=rtpmap`: RFC 7587 requires 2 for Opus even though this
    /// stream sends mono; 1 for G.722 and G.711.
    package var channels: Int {
        switch self {
        case .opus: 2
        case .g722, .pcmu, .pcma: 1
        }
    }

    /// RTP timestamp ticks in one packet of `ptime` milliseconds.
    package func rtpTimestampIncrement(ptime: Int) -> Int { rtpClockRate / 1000 * ptime }

    /// "name/rate[/channels]", as in `a=rtpmap`.
    package var description: String {
        channels > 1 ? "\(name)/\(rtpClockRate)/\(channels)" : "\(name)/\(rtpClockRate)"
    }
}
