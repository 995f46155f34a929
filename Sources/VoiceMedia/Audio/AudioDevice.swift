import VoiceSupport
/// The PCM format a device captures or renders: signed 16-bit, interleaved, native endian.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Samples per second per channel.
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo, interleaved).
    public var channels: Int
    /// Frames (samples per channel) in one device period, e.g. 480 for 10 ms at 48 kHz.
    public var framesPerBuffer: Int

    /// Creates a format; the default is ``voice`` (48 kHz mono, 480-frame periods).
    public init(sampleRate: Int = 48_000, channels: Int = 1, framesPerBuffer: Int = 480) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.framesPerBuffer = framesPerBuffer
    }

    /// 48 kHz mono, 10 ms periods: the format streams use unless told otherwise.
    public static let voice = AudioFormat()

    /// Interleaved samples in one period.
    public var samplesPerBuffer: Int { framesPerBuffer * channels }
    /// Duration of one period in nanoseconds.
    package var bufferDuration: MediaTime {
        MediaTime(nanoseconds: Int64(framesPerBuffer) * 1_000_000_000 / Int64(sampleRate))
    }
    /// E.g. `48000 Hz × 1 ch, 480 frames/buffer`.
    public var description: String { "\(sampleRate) Hz × \(channels) ch, \(framesPerBuffer) frames/buffer" }
}

/// Something an audio device reports while running, delivered to its ``AudioDeviceContext``.
///
/// A device reports ``xrunRecovered(capture:)``, ``suspendRecovered(capture:)`` and
/// ``failed(_:)``. Calls never see a bare failure: they run on the SDK's shared device, which
/// turns a failure into ``interrupted(capture:_:)``, reopens the device with backoff, and
/// reports ``resumed(capture:)`` once it runs again.
public enum AudioDeviceEvent: Sendable, Equatable {
    /// Capture or playback under/overran and the device recovered (ALSA xrun, `EPIPE`).
    case xrunRecovered(capture: Bool)
    /// The system suspended the device (ALSA `ESTRPIPE`) and it was resumed in place.
    case suspendRecovered(capture: Bool)
    /// The device failed and stopped; the stream keeps running without it.
    case failed(AudioDeviceError)
    /// The direction's audio is interrupted: the device failed, or could not be opened for a
    /// reason that may pass (busy, gone, sound server away). The stream keeps sending silence
    /// and plays nothing while the device is reopened.
    case interrupted(capture: Bool, AudioDeviceError)
    /// The interrupted direction runs again.
    case resumed(capture: Bool)
}

/// What the media stream offers a running device. Modeled on Twilio's `TVOAudioDeviceContext`:
/// the device pushes captured audio in and pulls audio to play out, on its own thread.
///
/// Implementations are called from the device's real-time thread: they never block on locks
/// held elsewhere and never allocate.
public protocol AudioDeviceContext: AnyObject, Sendable {
    /// Hands one buffer of captured samples (in the device's `captureFormat`) to the stream.
    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>)
    /// Fills `samples` (in the device's `renderFormat`) with audio to play; silence when there is none.
    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>)
    /// Reports a device event (xrun, failure).
    func audioDevice(didReport event: AudioDeviceEvent)
}

/// An audio device, modeled on Twilio's `TVOAudioDevice`: a source of captured audio and a sink
/// for rendered audio, each started and stopped separately.
///
/// Implementers guarantee: `start*` returns promptly (work runs on the device's own thread);
/// `stop*` is idempotent and returns only when the device no longer calls the context;
/// while ``isEnabled`` is false the device delivers silence and discards render audio but
/// keeps its pacing.
public protocol AudioDevice: AnyObject, Sendable {
    /// Format of captured audio, or nil if the device cannot capture.
    var captureFormat: AudioFormat? { get }
    /// Format of rendered audio, or nil if the device cannot render.
    var renderFormat: AudioFormat? { get }
    /// When false the device captures silence and plays nothing, still paced in real time.
    var isEnabled: Bool { get set }
    /// Starts delivering captured audio to `context`.
    func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError)
    /// Stops capturing. Idempotent.
    func stopCapturing()
    /// Starts pulling audio to play from `context`.
    func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError)
    /// Stops rendering. Idempotent.
    func stopRendering()
    /// The system's playback volume for this device, 0…1, or nil when it has none or it is
    /// unknown (the default). May block briefly (a mixer read): not for a loop or an audio thread.
    var outputVolume: Double? { get }
    /// The voice processing calls on this device get unless they ask otherwise: everything on
    /// for a microphone and speaker (``ALSAAudioDevice``), nothing for file, buffer and null
    /// devices (the default), whose users want the signal untouched.
    var defaultAudioProcessing: AudioProcessingOptions { get }
    /// How late audio is on the device now, as it reports it, or nil when it does not know (the
    /// default). Read by the echo canceller from the capture thread every 10 ms: it must be cheap
    /// and must not block.
    var latency: AudioDeviceLatency? { get }
}

extension AudioDevice {
    /// No volume: buffer, file and null devices play at full scale.
    public var outputVolume: Double? { nil }
    /// No processing: the signal stays untouched.
    public var defaultAudioProcessing: AudioProcessingOptions { .none }
    /// Unknown.
    public var latency: AudioDeviceLatency? { nil }
}

/// How late audio is on a device: what ALSA's `snd_pcm_delay` reports for each direction.
public struct AudioDeviceLatency: Hashable, Sendable {
    /// From the microphone to the application: captured audio not yet read.
    public var capture: Duration
    /// From the application to the speaker: written audio not yet played.
    public var playback: Duration

    /// Creates a latency.
    public init(capture: Duration, playback: Duration) {
        self.capture = capture
        self.playback = playback
    }
}
