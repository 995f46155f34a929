import Dispatch
import VoiceSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Told of each change to a machine's audio devices, on the monitor's delegate queue.
public protocol AudioDeviceMonitorDelegate: AnyObject, Sendable {
    /// A device was added, removed or changed, or a direction's default is another one.
    func audioDeviceMonitor(_ monitor: AudioDeviceMonitor, didReport change: AudioDeviceChange)
}

/// The machine's microphones and speakers, kept up to date: what a browser's
/// `enumerateDevices()` lists and its `devicechange` event reports.
///
/// On a desktop the list comes from the sound server (PulseAudio, or PipeWire's
/// `pipewire-pulse`) through libpulse, subscribed to its events: a headset plugged in or
/// unplugged, a default the user picks, a profile switched. Where no sound server runs (a
/// server, an embedded board) it comes from ALSA's device hints, read again every
/// ``alsaPollInterval``. A sound server that goes away takes its devices with it (each is
/// reported removed); the monitor connects again every second and reports them added when the
/// server is back.
///
/// Changes reach the ``delegate`` on its queue and every ``changes`` sequence, in the order
/// they happened; ``devices`` is the list as of the last change. Open a device from the list
/// with ``makeAudioDevice(capture:playback:format:)``. A device opened on the default
/// (``PulseAudioDevice`` with no name) follows the user's default as they change it.
///
/// Threading: thread-safe. The monitor runs a thread of its own until ``stop()`` (or its end).
public final class AudioDeviceMonitor: @unchecked Sendable {
    // @unchecked: `delegate` is weak and set once; the rest is behind locks or immutable.

    /// How often ALSA's hints are read again when they are the backend.
    public static let alsaPollInterval: Duration = .seconds(2)

    /// Where the list comes from.
    public let backend: AudioDeviceBackend
    /// The sound server the list comes from (nil: the session's), with the PulseAudio backend.
    public let server: String?
    /// Told of each change, on ``delegateQueue``. Held weakly.
    public private(set) weak var delegate: (any AudioDeviceMonitorDelegate)?
    /// Where the delegate is called.
    public let delegateQueue: DispatchQueue

    /// The list and the sequences that follow it, behind one lock: a sequence made at any
    /// moment gets every change applied after the list it could have read, none twice.
    private struct State {
        var catalog: AudioDeviceCatalog
        var next = 0
        var continuations: [Int: AsyncStream<AudioDeviceChange>.Continuation] = [:]
        var stopped = false
    }

    private let state: Locked<State>
    private let thread = Locked<DeviceThread?>(nil)

    /// Lists the devices and starts watching them.
    ///
    /// - Parameters:
    ///   - backend: ``AudioDeviceBackend/pulseAudio`` or ``AudioDeviceBackend/alsa``; nil (the
    ///     default) takes the sound server when one answers and ALSA's hints otherwise.
    ///   - server: the sound server to ask (nil: the session's, `PULSE_SERVER`).
    ///   - delegate: told of each change.
    ///   - delegateQueue: where the delegate is called (nil: a serial queue of the monitor's).
    /// - Throws: ``AudioDeviceError/Kind/openFailed`` when ``AudioDeviceBackend/pulseAudio``
    ///   was asked for and no sound server answers within 2 s.
    public init(
        backend: AudioDeviceBackend? = nil, server: String? = nil, delegate: (any AudioDeviceMonitorDelegate)? = nil,
        delegateQueue: DispatchQueue? = nil
    ) throws(AudioDeviceError) {
        self.server = server
        self.delegate = delegate
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "voice.audio-device-monitor")
        var watch: PulseDeviceWatch?
        switch backend {
        case .alsa: break
        case .pulseAudio: watch = try PulseDeviceWatch(server: server)
        case nil: watch = try? PulseDeviceWatch(server: server)
        }
        self.backend = watch == nil ? .alsa : .pulseAudio
        var catalog = AudioDeviceCatalog(backend: self.backend)
        if let watch {
            _ = catalog.apply((try? watch.take(waitingMicroseconds: 0)) ?? [])
        } else {
            _ = catalog.apply(ALSADeviceHints.listing())
        }
        self.state = Locked(State(catalog: catalog))
        let body = MonitorLoop(monitor: self, watch: watch)
        let started = try DeviceThread.start(name: "voice-devices", realTime: false) { thread in body.run(on: thread) }
        self.thread.withLock { $0 = started }
    }

    deinit { stop() }

    /// The devices now, playback then capture.
    public var devices: [AudioDeviceInfo] { state.withLock { $0.catalog.devices } }

    /// The default device for `direction` now, if there is one.
    public func defaultDevice(_ direction: AudioDeviceDirection) -> AudioDeviceInfo? {
        state.withLock { $0.catalog.defaultDevice(direction) }
    }

    /// Every change from now on, in order; finishes at ``stop()``. Each access is a sequence of
    /// its own. Make it before reading ``devices`` to miss nothing (a change that comes between
    /// the two is then in both).
    public var changes: AsyncStream<AudioDeviceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: AudioDeviceChange.self)
        let id = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            defer { state.next += 1 }
            state.continuations[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) } }
        return stream
    }

    /// How many ``changes`` sequences are being followed.
    package var sequenceCount: Int { state.withLock { $0.continuations.count } }

    /// Opens a device on `capture` and `playback` from the list (nil: the default, followed as
    /// the user changes it): a ``PulseAudioDevice`` with the PulseAudio backend, an
    /// ``ALSAAudioDevice`` with ALSA's (its `default` PCM for nil).
    ///
    /// - Throws: ``AudioDeviceError/Kind/openFailed`` for a device of the wrong direction or
    ///   from another backend; ``AudioDeviceError/Kind/unsupportedFormat`` for a format the
    ///   device class refuses.
    public func makeAudioDevice(capture: AudioDeviceInfo? = nil, playback: AudioDeviceInfo? = nil, format: AudioFormat = .voice)
        throws(AudioDeviceError) -> any AudioDevice
    {
        for (device, direction) in [(capture, AudioDeviceDirection.capture), (playback, .playback)] {
            guard let device else { continue }
            guard device.direction == direction, device.backend == backend else {
                throw AudioDeviceError(kind: .openFailed, code: -EINVAL, message: "\(device) cannot be opened for \(direction) on \(backend)")
            }
        }
        switch backend {
        case .pulseAudio:
            return try PulseAudioDevice(capture: capture?.name, playback: playback?.name, server: server, format: format)
        case .alsa:
            return try ALSAAudioDevice(capture: capture?.name ?? "default", playback: playback?.name ?? "default", format: format)
        }
    }

    /// Stops watching; every ``changes`` sequence finishes. Idempotent.
    public func stop() {
        let running = thread.withLock { running -> DeviceThread? in
            defer { running = nil }
            return running
        }
        running?.stopAndJoin()
        let continuations = state.withLock { state in
            defer {
                state.continuations = [:]
                state.stopped = true
            }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// Applies what the backend reported and tells the sequences and the delegate what changed,
    /// under the list's lock so every sequence sees each change once and in order (yielding and
    /// queueing the delegate's call do not block).
    fileprivate func apply(_ events: [AudioDeviceCatalog.Event]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            let changes = state.catalog.apply(events)
            guard !changes.isEmpty else { return }
            for change in changes {
                for continuation in state.continuations.values { continuation.yield(change) }
            }
            delegateQueue.async { [weak self] in
                guard let self, let delegate = self.delegate else { return }
                for change in changes { delegate.audioDeviceMonitor(self, didReport: change) }
            }
        }
    }
}

/// The monitor's thread: turns the sound server's connection (reconnecting each second while
/// the server is away), or reads ALSA's hints again every poll interval.
private final class MonitorLoop: @unchecked Sendable {
    // @unchecked: made by the monitor, then used by its thread only.
    private weak var monitor: AudioDeviceMonitor?
    private let backend: AudioDeviceBackend
    private let server: String?
    private var watch: PulseDeviceWatch?

    init(monitor: AudioDeviceMonitor, watch: PulseDeviceWatch?) {
        self.monitor = monitor
        self.backend = monitor.backend
        self.server = monitor.server
        self.watch = watch
    }

    func run(on thread: DeviceThread) {
        let clock = ContinuousClock()
        // The monitor listed the devices as it started: the next ALSA poll is one interval on.
        var next = clock.now + AudioDeviceMonitor.alsaPollInterval
        while !thread.shouldStop {
            switch backend {
            case .pulseAudio:
                if let current = watch {
                    do {
                        monitor?.apply(try current.take(waitingMicroseconds: 100_000))
                    } catch {
                        watch = nil
                        monitor?.apply([.lost])
                        next = clock.now + .seconds(1)
                    }
                } else if clock.now >= next {
                    watch = try? PulseDeviceWatch(server: server, timeout: .seconds(1))
                    next = clock.now + .seconds(1)
                } else {
                    usleep(100_000)
                }
            case .alsa:
                if clock.now >= next {
                    monitor?.apply([ALSADeviceHints.listing()])
                    next = clock.now + AudioDeviceMonitor.alsaPollInterval
                }
                usleep(100_000)
            }
        }
    }
}
