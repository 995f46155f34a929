import VoiceMedia
import VoiceSupport

/// A device that captures from memory (samples or a generator) and records what it renders
/// into memory, for bots, servers and tests.
///
/// Paced in real time on ``SoftwareAudioClock/shared`` by default. Threading: thread-safe;
/// ``recordedSamples`` is a locked snapshot that may be read while rendering.
/// Recording appends into storage reserved up front (`recordingCapacity`), so steady-state
/// rendering does not allocate until that capacity is exceeded.
public final class BufferAudioDevice: AudioDevice, @unchecked Sendable {
    /// Produces one capture buffer in place. Called on the pacing thread; must not block.
    public typealias Generator = @Sendable (UnsafeMutableBufferPointer<Int16>) -> Void

    /// The format of both directions.
    public let format: AudioFormat
    /// How buffers are timed.
    public var pacing: SoftwareAudioPacing { device.pacing }
    /// Format of captured audio.
    public var captureFormat: AudioFormat? { format }
    /// Format of recorded render audio.
    public var renderFormat: AudioFormat? { format }
    /// When false, capture delivers silence and silence is recorded; pacing continues.
    public var isEnabled: Bool {
        get { device.isEnabled }
        set { device.isEnabled = newValue }
    }

    private let device: SoftwareAudioDevice
    private let source: SampleSource
    private let recorder: Recorder

    /// Creates a device that captures `samples` (interleaved, in `format`) once, then silence, or in a loop.
    /// With `recording` false, rendered audio is pulled in real time and discarded (a load generator).
    public init(
        format: AudioFormat = .voice, captureSamples: [Int16] = [], loop: Bool = false,
        recordingCapacity: Int = 48_000 * 60, recording: Bool = true, pacing: SoftwareAudioPacing = .realTime
    ) {
        self.format = format
        self.device = SoftwareAudioDevice(label: "voice-buf", pacing: pacing)
        self.source = SampleSource(content: .samples(captureSamples, loop: loop))
        self.recorder = Recorder(capacity: recording ? recordingCapacity : 0, enabled: recording)
    }

    /// Creates a device whose capture buffers are produced by `generator`.
    public init(
        format: AudioFormat = .voice, recordingCapacity: Int = 48_000 * 60,
        pacing: SoftwareAudioPacing = .realTime, generator: @escaping Generator
    ) {
        self.format = format
        self.device = SoftwareAudioDevice(label: "voice-buf", pacing: pacing)
        self.source = SampleSource(content: .generator(generator))
        self.recorder = Recorder(capacity: recordingCapacity)
    }

    /// Everything rendered so far (interleaved, in ``renderFormat``). A snapshot; safe while rendering.
    public var recordedSamples: [Int16] { recorder.samples.withLock { $0 } }

    /// Discards the recording.
    public func clearRecording() { recorder.samples.withLock { $0.removeAll(keepingCapacity: true) } }

    /// Starts delivering the capture content to `context`, from its beginning.
    public func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startCapturing(from: source, format: format, context: context, prepare: source.rewind)
    }

    /// Stops capturing; no capture callback runs after it returns. Idempotent.
    public func stopCapturing() { device.stopCapturing() }

    /// Starts pulling render audio from `context` into the recording.
    public func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startRendering(into: recorder, format: format, context: context)
    }

    /// Stops rendering; no render callback runs after it returns. Idempotent.
    public func stopRendering() { device.stopRendering() }

    /// Whether capture runs (started and not stopped).
    package var isCapturing: Bool { device.isCapturing }
    /// Whether rendering runs (started and not stopped).
    package var isRendering: Bool { device.isRendering }

    /// The recording, behind a mutex so snapshots can be taken while rendering.
    final class Recorder: SoftwareRenderSink, Sendable {
        let samples: Locked<[Int16]>
        let enabled: Bool
        init(capacity: Int, enabled: Bool = true) {
            var storage = [Int16]()
            storage.reserveCapacity(max(0, capacity))
            samples = Locked(storage)
            self.enabled = enabled
        }
        func consume(_ buffer: UnsafeBufferPointer<Int16>) {
            guard enabled else { return }
            samples.withLock { $0.append(contentsOf: buffer) }
        }
    }
}
