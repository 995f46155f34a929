import VoiceMedia
/// A device that captures silence and discards what it renders, paced in real time.
///
/// For calls without audio hardware (servers, bots that only signal). Threading: thread-safe;
/// `isEnabled` is an atomic flag and each direction's start/stop slot sits behind a mutex
/// (`@unchecked` only for the stateless silence endpoint it shares between pumps).
/// Callbacks run on the pacing thread.
public final class NullAudioDevice: AudioDevice, @unchecked Sendable {
    /// The format of both directions.
    public let format: AudioFormat
    /// How buffers are timed.
    public var pacing: SoftwareAudioPacing { device.pacing }
    /// Format of captured silence.
    public var captureFormat: AudioFormat? { format }
    /// Format of discarded render audio.
    public var renderFormat: AudioFormat? { format }
    /// Has no audible effect on a null device other than what it reports; pacing continues.
    public var isEnabled: Bool {
        get { device.isEnabled }
        set { device.isEnabled = newValue }
    }

    private let device: SoftwareAudioDevice
    private let silence = SilenceAudioEndpoint()

    /// Creates a null device with `format` (default 48 kHz mono, 10 ms), paced by `pacing`.
    public init(format: AudioFormat = .voice, pacing: SoftwareAudioPacing = .realTime) {
        self.format = format
        self.device = SoftwareAudioDevice(label: "voice-null", pacing: pacing)
    }

    /// Starts delivering silent buffers to `context`. Throws ``AudioDeviceError/Kind/alreadyStarted`` if running.
    public func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startCapturing(from: silence, format: format, context: context)
    }

    /// Stops capturing; no capture callback runs after it returns. Idempotent.
    public func stopCapturing() { device.stopCapturing() }

    /// Starts pulling (and discarding) render audio from `context`.
    public func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startRendering(into: silence, format: format, context: context)
    }

    /// Stops rendering; no render callback runs after it returns. Idempotent.
    public func stopRendering() { device.stopRendering() }
}
