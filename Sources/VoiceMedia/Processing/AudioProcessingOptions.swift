/// The voice processing a device's microphone signal goes through before the encoder, named
/// after WebRTC's audio constraints (`echoCancellation`, `noiseSuppression`, `autoGainControl`)
/// and Twilio's audio options.
///
/// Processing belongs to the physical device, not to a call: every call on one device shares
/// one processor, whose echo reference is the mix the device actually plays. The defaults come
/// from the device (``AudioDevice/defaultAudioProcessing``): everything on for ALSA devices,
/// everything off for file, buffer and null devices, whose users (bots, servers, tests) want
/// the signal untouched.
public struct AudioProcessingOptions: Hashable, Sendable, CustomStringConvertible {
    /// Removes the far party's voice that the speaker plays back into the microphone (acoustic
    /// echo), using what the device plays as the reference.
    public var echoCancellation: Bool
    /// Removes stationary background noise (fans, hum, hiss) from the microphone signal.
    public var noiseSuppression: Bool
    /// Brings the talker's level toward a steady speech level (about −20 dBFS), without raising
    /// the noise in pauses.
    public var autoGainControl: Bool
    /// Removes DC and low-frequency rumble below speech.
    public var highPassFilter: Bool

    /// Creates options; every stage is on unless told otherwise.
    public init(echoCancellation: Bool = true, noiseSuppression: Bool = true, autoGainControl: Bool = true, highPassFilter: Bool = true) {
        self.echoCancellation = echoCancellation
        self.noiseSuppression = noiseSuppression
        self.autoGainControl = autoGainControl
        self.highPassFilter = highPassFilter
    }

    /// Every stage on: what a call on a microphone and speaker wants.
    public static let all = AudioProcessingOptions()
    /// Every stage off: the signal untouched.
    public static let none = AudioProcessingOptions(echoCancellation: false, noiseSuppression: false, autoGainControl: false, highPassFilter: false)

    /// Whether any stage is on.
    public var isEnabled: Bool { echoCancellation || noiseSuppression || autoGainControl || highPassFilter }

    /// E.g. `aec ns agc hpf`, or `none`.
    public var description: String {
        let stages = [(echoCancellation, "aec"), (noiseSuppression, "ns"), (autoGainControl, "agc"), (highPassFilter, "hpf")]
            .filter(\.0).map(\.1)
        return stages.isEmpty ? "none" : stages.joined(separator: " ")
    }

    /// The stages as bits, for an atomic.
    package var bits: UInt8 {
        (echoCancellation ? 1 : 0) | (noiseSuppression ? 2 : 0) | (autoGainControl ? 4 : 0) | (highPassFilter ? 8 : 0)
    }

    /// The options `bits` stands for.
    package init(bits: UInt8) {
        self.init(echoCancellation: bits & 1 != 0, noiseSuppression: bits & 2 != 0, autoGainControl: bits & 4 != 0, highPassFilter: bits & 8 != 0)
    }
}

/// Why a device's audio is not processed as asked. A logged warning says it too; the call goes on.
public enum AudioProcessingFallback: Hashable, Sendable, CustomStringConvertible {
    /// The device cannot play, so there is no echo reference: echo cancellation does not run
    /// (noise suppression, gain control and the high-pass filter do, if asked for).
    case noPlaybackSide
    /// The processor cannot take the device's format: nothing runs.
    /// The processor takes 8, 16, 32 or 48 kHz, one or two channels, the same rate both ways.
    /// Nothing runs.
    case unsupportedFormat(capture: AudioFormat, render: AudioFormat?)
    /// The processing library refused to start (out of memory, or a format it rejects). Nothing runs.
    case processorUnavailable

    /// A sentence for logs.
    public var description: String {
        switch self {
        case .noPlaybackSide: "the device has no playback side to take the echo reference from"
        case let .unsupportedFormat(capture, render):
            "the processor cannot take capture \(capture)" + (render.map { " with render \($0)" } ?? "")
        case .processorUnavailable: "the audio processing library refused to start"
        }
    }
}
