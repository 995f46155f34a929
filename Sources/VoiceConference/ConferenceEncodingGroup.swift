import VoiceMedia
import VoiceRTP

/// The room's shared mix encoded once for every listener whose stream has the same encoding
/// (``SharedEncodingKey``) and whose frames end on the same mix (`phase`: the mix number modulo
/// the frame's periods), as Asterisk's ConfBridge encodes its mix once per format. Each
/// listener's stream then packetizes and protects the payload as its own.
///
/// Made off the clock thread (creating an encoder allocates), handed to it once; from then on
/// only the clock thread touches it (not `Sendable`).
final class ConferenceEncodingGroup {
    let key: SharedEncodingKey
    let phase: Int
    /// 10 ms periods per frame.
    let periods: Int
    private let encoder: any MediaEncoder
    private let buffer: UnsafeMutableRawBufferPointer
    /// The frame encoded last, the mix it ends on, its peak sample and RFC 6464 level.
    private(set) var payload = UnsafeRawBufferPointer(start: nil, count: 0)
    private(set) var encodedAtMix = -1
    private(set) var peak = 0
    private(set) var level: UInt8 = 127
    /// The last mix a listener of this group heard only the shared mix: the group encodes
    /// while that is recent (``keepsEncodingFor`` mixes), so a listener moving to it finds its
    /// encoder warm, and stops when nobody needs it.
    var wantedAtMix = Int.min / 2

    /// Mixes a group keeps encoding after its last listener wanted it: 300 ms. A listener
    /// moves to a group only after 200 ms quiet, which the group spends encoding already, so a
    /// longer wait would only cost encodes (a stream's first RTCP report turns its FEC off and
    /// moves all its listeners to another group at once).
    static let keepsEncodingFor = 30

    /// A group for `key` (whose ptime must be a whole number of 10 ms periods) at `phase`.
    init(key: SharedEncodingKey, phase: Int) throws(MediaCodecError) {
        self.key = key
        self.phase = phase
        periods = max(1, key.ptime / 10)
        encoder = try key.makeEncoder()
        buffer = .allocate(byteCount: encoder.maxPayloadSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Whether the group encodes the frame ending on mix `mix`.
    func isDue(atMix mix: Int) -> Bool { mix % periods == phase && mix - wantedAtMix <= Self.keepsEncodingFor }

    /// Encodes `frame` (one frame of the shared mix, ending on mix `mix`). A failed encode
    /// leaves no frame for this mix: its listeners get samples instead.
    func encode(_ frame: UnsafeBufferPointer<Int16>, mix: Int) {
        do throws(MediaCodecError) {
            let length = try encoder.encode(frame, into: buffer)
            payload = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
            peak = AudioFrameLevel.peak(frame)
            level = AudioFrameLevel.dBov(frame)
            encodedAtMix = mix
        } catch {
            encodedAtMix = -1
        }
    }
}

/// A group made on the encoder queue, handed once to the clock thread.
struct ConferenceEncodingGroupHandoff: @unchecked Sendable {
    // @unchecked: made on one thread, handed once through the bridge's inbox, never touched by
    // its maker again.
    let group: ConferenceEncodingGroup
}
