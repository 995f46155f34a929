import VoiceMedia
import VoiceRTP

/// One participant's place in the mix, as the bridge's clock thread keeps it: its port, the
/// levels its packets announce, how its frames are put together, and whether it hears the
/// room's shared encode.
struct ConferenceSlot {
    let port: ConferencePort
    /// Where its RFC 6464 levels arrive, the packets counted at the last period, the newest
    /// level, and the periods since it came.
    var levelSource: ReceivedAudioLevel?
    var levelCount: UInt64 = 0
    var level = 127
    var periodsSinceLevel = Int.max

    /// Where the participant's next frame stands.
    enum Framing {
        /// Its first frame starts on a mix ``ConferenceBridge/mayStart(_:_:)`` picks.
        case waiting
        /// `period` periods of the frame are gathered; `heardShared` while each was the shared
        /// mix (it added nothing, and its port was enabled).
        case gathering(period: Int, heardShared: Bool)
    }
    var framing = Framing.waiting
    /// The call's encoding (nil until its stream says), and the version read.
    var encoding: SharedEncodingKey?
    var encodingVersion = -1
    /// Frames in a row it heard only the shared mix.
    var quietFrames = 0
    /// The group it was last seen to match (an index into the bridge's groups).
    var group: Int?

    init(port: ConferencePort) { self.port = port }

    /// 10 ms periods per frame: its codec's, or 20 ms until its stream says.
    var framePeriods: Int {
        guard let encoding, encoding.ptime % 10 == 0, encoding.ptime >= 10 else { return 2 }
        return min(ConferenceSlot.maximumFramePeriods, encoding.ptime / 10)
    }

    /// The longest frame gathered: 60 ms.
    static let maximumFramePeriods = 6
}

/// A recording's tap for the clock thread (nil: none).
struct RecordingTapHandoff: Sendable {
    let tap: RecordingTap?
}

/// What the control threads hand the clock thread (``ConferenceBridge``).
enum ConferenceBridgeCommand: Sendable {
    case attach(slot: Int, port: ConferencePort)
    case detach(slot: Int)
    case mute(slot: Int, Bool)
    case levelSource(slot: Int, ReceivedAudioLevel?)
    case addGroup(ConferenceEncodingGroupHandoff)
    /// Record the room's mix into this tap (nil: stop).
    case recording(RecordingTapHandoff)
    /// A group could not be made for this key: stop asking.
    case groupFailed(SharedEncodingKey, phase: Int)
}
