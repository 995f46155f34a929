import CPulse
import Synchronization
import VoiceSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An audio device on the desktop's sound server, through libpulse: PulseAudio, or PipeWire's
/// `pipewire-pulse`. Each direction is a stream of its own, on a connection of its own, tagged
/// `media.role=phone` so the desktop treats it as a call.
///
/// Made with no device name (the default), a direction follows the user's default device: when
/// they pick another (a headset plugged in) or the device goes away, the server moves the
/// stream itself, without a restart or a gap (PulseAudio 14 and later, PipeWire). Made with a
/// name from ``AudioDeviceInfo/name`` (``AudioDeviceMonitor`` lists them), it stays on that
/// device until it goes away, then the server moves it to the default.
///
/// A server that goes away (a crash, a restart) ends the direction with a transient error,
/// which calls turn into an interruption and a reopen once the server is back
/// (``AudioDeviceEvent/interrupted(capture:_:)``, ``AudioDeviceEvent/resumed(capture:)``).
///
/// Threading: thread-safe. Each direction runs on a thread of its own, which turns its
/// stream's main loop; context callbacks run there.
public final class PulseAudioDevice: AudioDevice, @unchecked Sendable {
    /// The source to capture from; nil for the default.
    public let captureDevice: String?
    /// The sink to play to; nil for the default.
    public let playbackDevice: String?
    /// The sound server (`unix:/run/user/1000/pulse/native`, `tcp:host`); nil for the session's.
    public let server: String?
    /// The format of both directions.
    public let format: AudioFormat
    /// Periods of our audio the server keeps queued for playback (its latency, with the server's own).
    package let bufferPeriods: Int

    public var captureFormat: AudioFormat? { format }
    public var renderFormat: AudioFormat? { format }
    /// When false, capture delivers silence and silence is played; both streams keep running.
    public var isEnabled: Bool {
        get { enabled.isEnabled }
        set { enabled.isEnabled = newValue }
    }
    /// Everything on: a desktop's microphone and speakers need echo cancellation, noise
    /// suppression, gain control and the high-pass filter.
    public var defaultAudioProcessing: AudioProcessingOptions { .all }

    /// What the server reported for each direction's stream after its last turn; nil unless both run.
    public var latency: AudioDeviceLatency? {
        guard let capture = captureDelay.delay, let playback = playbackDelay.delay else { return nil }
        return AudioDeviceLatency(capture: capture, playback: playback)
    }

    /// How loud the call plays, as the server has it: the volume of the sink the playback stream
    /// is on now (the user's volume control) times the stream's own (the app's slider in the
    /// desktop's mixer), 0…1 (more when amplified past 100 %), 0 when either is muted; before
    /// playback starts, the sink it would open on. Nil when the server cannot be reached. A
    /// round trip to the server: call it off any loop or audio thread.
    public var outputVolume: Double? {
        let index = playbackStream.load(ordering: .relaxed)
        return volume.withLock { $0.read(stream: index >= 0 ? UInt32(index) : nil, sink: playbackDevice) }
    }

    private let enabled = AudioEnableFlag(true)
    private let volume: Locked<PulseVolumeReader>
    /// The running playback stream's index on the server (its sink input), -1 while none runs.
    private let playbackStream = Atomic<Int64>(-1)
    private let captureThread = Locked(DirectionSlot())
    private let playbackThread = Locked(DirectionSlot())
    private let captureDelay = DeviceLatencySlot()
    private let playbackDelay = DeviceLatencySlot()

    /// Creates a device capturing from source `capture` and playing to sink `playback` (nil:
    /// the defaults, followed as the user changes them) on `server` (nil: the session's).
    /// Nothing connects until `start*`.
    ///
    /// - Throws: ``AudioDeviceError/Kind/unsupportedFormat`` unless channels are 1–2, the rate
    ///   8–192 kHz and the period 10–20 ms.
    public convenience init(capture: String? = nil, playback: String? = nil, server: String? = nil, format: AudioFormat = .voice) throws(AudioDeviceError) {
        try self.init(capture: capture, playback: playback, server: server, format: format, bufferPeriods: 4)
    }

    /// As the public initializer, with the playback queue's length in periods (at least 2).
    package init(capture: String?, playback: String?, server: String?, format: AudioFormat, bufferPeriods: Int) throws(AudioDeviceError) {
        guard (1...2).contains(format.channels), (8_000...192_000).contains(format.sampleRate) else {
            throw AudioDeviceError(kind: .unsupportedFormat, code: -EINVAL, message: "unsupported format \(format)")
        }
        let periodMicroseconds = format.framesPerBuffer * 1_000_000 / format.sampleRate
        guard (10_000...20_000).contains(periodMicroseconds) else {
            throw AudioDeviceError(kind: .unsupportedFormat, code: -EINVAL, message: "period must be 10–20 ms, got \(format)")
        }
        self.captureDevice = capture
        self.playbackDevice = playback
        self.server = server
        self.format = format
        self.bufferPeriods = max(2, bufferPeriods)
        self.volume = Locked(PulseVolumeReader(server: server))
    }

    deinit {
        stopCapturing()
        stopRendering()
    }

    /// Connects to the server, opens the capture stream and starts its thread. Waits for the
    /// server (up to 2 s).
    ///
    /// - Throws: ``AudioDeviceError/Kind/openFailed`` when no server answers (transient: a
    ///   restarting server comes back) or the source does not exist (`ENOENT`);
    ///   ``AudioDeviceError/Kind/alreadyStarted`` if capturing.
    public func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try start(capture: true, slot: captureThread, context: context)
    }

    /// Stops capturing and closes the stream; no capture callback runs after it returns. Idempotent.
    public func stopCapturing() { stop(captureThread, delay: captureDelay) }

    /// Opens the playback stream and starts its thread. Throws as ``startCapturing(context:)``.
    public func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try start(capture: false, slot: playbackThread, context: context)
    }

    /// Stops playback and closes the stream; no render callback runs after it returns. Idempotent.
    public func stopRendering() { stop(playbackThread, delay: playbackDelay) }

    /// A direction's thread, and how many times it was stopped: a start that a stop overtook
    /// while it connected does not install its thread.
    private struct DirectionSlot {
        var thread: DeviceThread?
        var stops = 0
    }

    private func start(capture: Bool, slot: Locked<DirectionSlot>, context: any AudioDeviceContext) throws(AudioDeviceError) {
        let started = AudioDeviceError(kind: .alreadyStarted, message: "PulseAudio \(capture ? "capture" : "playback") already started")
        let stops = try slot.withLock { slot throws(AudioDeviceError) -> Int in
            guard slot.thread == nil else { throw started }
            return slot.stops
        }
        // The round trips to the server run outside the lock (a stop is never held up behind them).
        let connection = try PulseConnection(applicationName: "VoiceSDK", server: server)
        let stream = try PulseStream(
            connection: connection, capture: capture, device: capture ? captureDevice : playbackDevice, format: format,
            bufferPeriods: bufferPeriods)
        let loop = PulseStreamLoop(
            stream: stream, format: format, context: context, enabled: enabled, latency: capture ? captureDelay : playbackDelay)
        let index = Int64(pa_stream_get_index(stream.stream))  // before the stream's thread owns it
        try slot.withLock { slot throws(AudioDeviceError) in
            guard slot.thread == nil else { throw started }
            guard slot.stops == stops else {
                throw AudioDeviceError(kind: .openFailed, code: -ECANCELED, message: "PulseAudio \(capture ? "capture" : "playback") stopped while it started")
            }
            slot.thread = try DeviceThread.start(name: capture ? "voice-pulse-cap" : "voice-pulse-play") { thread in
                loop.run(on: thread)
            }
            if !capture { playbackStream.store(index, ordering: .relaxed) }
        }
    }

    private func stop(_ slot: Locked<DirectionSlot>, delay: DeviceLatencySlot) {
        let thread = slot.withLock { slot -> DeviceThread? in
            defer {
                slot.thread = nil
                slot.stops += 1
            }
            return slot.thread
        }
        thread?.stopAndJoin()
        delay.clear()
        if slot === playbackThread { playbackStream.store(-1, ordering: .relaxed) }
    }
}
