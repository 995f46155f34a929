import VoiceBytes
import VoiceSupport
/// The SILK header flags of an Opus packet (RFC 6716 §4.2.3): whether its frame carries speech
/// (a voice-activity flag) and whether it carries in-band FEC (the LBRR flag), read without
/// decoding.
///
/// In SILK-only and hybrid packets the range coder's first symbols are one VAD flag per 20 ms
/// SILK frame and then the LBRR flag, each coded with probability ½. The range coder starts
/// with a power-of-two range, so each of these symbols is exactly one bit of the payload after
/// the TOC byte, most significant first. Only single-frame packets (code 0) are read; CELT-only
/// packets have no SILK layer.
///
/// libopus decides for itself whether in-band FEC is affordable at the current bitrate,
/// complexity and loss hint, and says nothing when it is not; these flags are how a sender
/// finds out what it really sent.
struct OpusSILKFlags: Hashable, Sendable {
    /// At least one SILK frame in the packet was coded as speech.
    var voiced: Bool
    /// The packet carries LBRR (redundant) data for the previous frame.
    var lbrr: Bool

    init(voiced: Bool, lbrr: Bool) {
        self.voiced = voiced
        self.lbrr = lbrr
    }

    /// Reads the flags of `packet`; nil for a CELT-only packet, a multi-frame packet, or one too
    /// short to hold them.
    init?(packet: UnsafeRawBufferPointer) {
        var reader = ByteReader(packet)
        guard let toc = try? reader.readUInt8(), let first = try? reader.readUInt8() else { return nil }
        guard toc & 0x03 == 0 else { return nil }  // code 0: one frame
        let configuration = Int(toc >> 3)
        let silkFrames: Int
        switch configuration {
        case 0..<12: silkFrames = [1, 1, 2, 3][configuration % 4]  // SILK-only: 10, 20, 40, 60 ms
        case 12..<16: silkFrames = 1  // hybrid: 10 or 20 ms
        default: return nil  // CELT-only
        }
        let vadMask = UInt8(truncatingIfNeeded: 0xFF00 >> silkFrames)
        voiced = first & vadMask != 0
        lbrr = first & (0x80 >> UInt8(silkFrames)) != 0
    }
}
