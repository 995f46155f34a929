import CALSA
import VoiceSupport

/// An audio device on ALSA (libasound): any PCM name, interleaved S16_LE, 10–20 ms periods.
///
/// Capture and playback each open their own PCM and run on their own named thread. Both loops
/// keep real-time pacing even when the PCM does not block (ALSA `null` returns at once): each
/// period has an absolute deadline on `CLOCK_MONOTONIC` and the thread sleeps until it whenever
/// the device returned early; when the device itself is late the deadline follows it, so a card
/// that blocks sets the pace. Xruns are recovered with `snd_pcm_recover` and reported as
/// ``AudioDeviceEvent/xrunRecovered(capture:)``; an unrecoverable error is reported as
/// ``AudioDeviceEvent/failed(_:)`` and ends that direction's thread (call `stop*` to reset it).
///
/// Threading: thread-safe. Start/stop state sits behind a mutex, ``isEnabled`` in an atomic;
/// the PCM handles are owned by their threads. Context callbacks run on the device threads.
public final class ALSAAudioDevice: AudioDevice, @unchecked Sendable {
    /// PCM names, format and buffering.
    package struct Configuration: Sendable, Hashable {
        /// PCM to capture from, e.g. `"default"`, `"hw:0,0"`, `"null"`.
        package var captureDevice: String
        /// PCM to play to.
        package var playbackDevice: String
        /// Rate, channels (1 or 2) and period (`framesPerBuffer`, 10–20 ms) of both directions.
        package var format: AudioFormat
        /// ALSA ring buffer size in periods (at least 2).
        package var bufferPeriods: Int
        /// Periods of silence queued before playback starts, as a cushion against jitter.
        package var playbackPrefillPeriods: Int

        /// Creates a configuration; defaults are the `"default"` PCM, 48 kHz mono, 10 ms periods, 4 periods of buffer.
        package init(
            captureDevice: String = "default", playbackDevice: String = "default", format: AudioFormat = .voice,
            bufferPeriods: Int = 4, playbackPrefillPeriods: Int = 1
        ) {
            self.captureDevice = captureDevice
            self.playbackDevice = playbackDevice
            self.format = format
            self.bufferPeriods = bufferPeriods
            self.playbackPrefillPeriods = playbackPrefillPeriods
        }
    }

    /// The configuration the device was created with.
    package let configuration: Configuration
    /// Format of captured audio.
    public var captureFormat: AudioFormat? { configuration.format }
    /// Format of rendered audio.
    public var renderFormat: AudioFormat? { configuration.format }
    /// When false, capture delivers silence and silence is played; both threads keep their pacing.
    public var isEnabled: Bool {
        get { enabled.isEnabled }
        set { enabled.isEnabled = newValue }
    }

    private let enabled = AudioEnableFlag(true)
    private let mixer: Locked<ALSAMixerVolume>
    /// Set once by the testing initializer, before any start.
    private var faults: (any ALSAFaultSource)?
    private let captureThread = Locked<DeviceThread?>(nil)
    private let playbackThread = Locked<DeviceThread?>(nil)
    /// Each direction's `snd_pcm_delay` after its last period.
    private let captureDelay = DeviceLatencySlot()
    private let playbackDelay = DeviceLatencySlot()

    /// Creates a device whose PCMs return `faults`' errors in place of libasound's (tests of
    /// the failures a machine without a sound card cannot produce).
    package convenience init(configuration: Configuration, faults: any ALSAFaultSource) throws(AudioDeviceError) {
        try self.init(configuration: configuration)
        self.faults = faults
    }

    /// Creates a device; nothing is opened until `start*`.
    ///
    /// - Throws: ``AudioDeviceError/Kind/unsupportedFormat`` unless channels are 1–2, the rate
    ///   positive and the period 10–20 ms.
    package init(configuration: Configuration = Configuration()) throws(AudioDeviceError) {
        let format = configuration.format
        guard (1...2).contains(format.channels), format.sampleRate > 0 else {
            throw AudioDeviceError(kind: .unsupportedFormat, message: "unsupported format \(format)")
        }
        let periodMicroseconds = format.framesPerBuffer * 1_000_000 / format.sampleRate
        guard (10_000...20_000).contains(periodMicroseconds) else {
            throw AudioDeviceError(kind: .unsupportedFormat, message: "period must be 10–20 ms, got \(format)")
        }
        self.configuration = configuration
        self.mixer = Locked(ALSAMixerVolume(pcm: configuration.playbackDevice))
    }

    /// The playback volume of the playback PCM's mixer (for `pulse` and a desktop's `default`:
    /// PulseAudio's default sink), 0…1; nil for a PCM without one (`null`, files). A round trip
    /// to the sound server: call it off any loop or audio thread.
    public var outputVolume: Double? {
        mixer.withLock { mixer in
            let wasOpen = mixer.isOpen
            if let volume = mixer.read() { return volume }
            if wasOpen { mixer.close() }  // A sound server that went away: open afresh next time.
            return nil
        }
    }

    /// Everything on: a microphone and a speaker in a room need echo cancellation, noise
    /// suppression, gain control and the high-pass filter.
    public var defaultAudioProcessing: AudioProcessingOptions { .all }

    /// What ALSA's `snd_pcm_delay` reported after each direction's last period; nil unless both run.
    public var latency: AudioDeviceLatency? {
        guard let capture = captureDelay.delay, let playback = playbackDelay.delay else { return nil }
        return AudioDeviceLatency(capture: capture, playback: playback)
    }

    /// Creates a device capturing from PCM `capture` and playing to PCM `playback` (a headset's
    /// microphone and the speakers, say) with `format`.
    public convenience init(capture: String, playback: String, format: AudioFormat = .voice) throws(AudioDeviceError) {
        try self.init(configuration: Configuration(captureDevice: capture, playbackDevice: playback, format: format))
    }

    /// Creates a device using PCM `name` for both directions with `format`.
    public convenience init(name: String = "default", format: AudioFormat = .voice) throws(AudioDeviceError) {
        try self.init(configuration: Configuration(captureDevice: name, playbackDevice: name, format: format))
    }

    deinit {
        stopCapturing()
        stopRendering()
    }

    /// Forces libasound to re-read its configuration (e.g. after changing `ALSA_CONFIG_PATH`).
    ///
    /// Call only while no PCM is open in the process.
    package static func reloadConfiguration() {
        _ = snd_config_update_free_global()
    }

    /// Opens the capture PCM and starts its thread.
    ///
    /// - Throws: ``AudioDeviceError/Kind/openFailed`` (with ALSA's code and `snd_strerror` text)
    ///   for a missing or busy PCM, ``AudioDeviceError/Kind/unsupportedFormat`` if it refuses the
    ///   format, ``AudioDeviceError/Kind/alreadyStarted`` if capturing.
    public func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try start(capture: true, slot: captureThread, context: context)
    }

    /// Stops capturing and closes the PCM; no capture callback runs after it returns. Idempotent.
    public func stopCapturing() { stop(captureThread) }

    /// Opens the playback PCM and starts its thread. Throws as ``startCapturing(context:)``.
    public func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try start(capture: false, slot: playbackThread, context: context)
    }

    /// Stops playback and closes the PCM; no render callback runs after it returns. Idempotent.
    public func stopRendering() { stop(playbackThread) }

    private func start(capture: Bool, slot: Locked<DeviceThread?>, context: any AudioDeviceContext) throws(AudioDeviceError) {
        let configuration = configuration
        let enabled = enabled
        let faults = faults
        try slot.withLock { running throws(AudioDeviceError) in
            guard running == nil else {
                throw AudioDeviceError(kind: .alreadyStarted, message: "ALSA \(capture ? "capture" : "playback") already started")
            }
            let pcm = try ALSAPCM(
                name: capture ? configuration.captureDevice : configuration.playbackDevice,
                capture: capture, format: configuration.format, bufferPeriods: configuration.bufferPeriods,
                faults: faults)
            let loop = ALSAStreamLoop(
                pcm: pcm, format: configuration.format, context: context, enabled: enabled,
                prefillPeriods: capture ? 0 : configuration.playbackPrefillPeriods,
                latency: capture ? captureDelay : playbackDelay)
            running = try DeviceThread.start(name: capture ? "voice-alsa-cap" : "voice-alsa-play") { thread in
                loop.run(on: thread)
            }
        }
    }

    private func stop(_ slot: Locked<DeviceThread?>) {
        let thread = slot.withLock { running -> DeviceThread? in
            defer { running = nil }
            return running
        }
        thread?.stopAndJoin()
        (slot === captureThread ? captureDelay : playbackDelay).clear()
    }
}
