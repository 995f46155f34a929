import Synchronization
import VoiceSupport

/// The shared on/off switch between a device and its running pumps.
package final class AudioEnableFlag: Sendable {
    private let value: Atomic<Bool>
    init(_ initial: Bool) { value = Atomic(initial) }
    var isEnabled: Bool {
        get { value.load(ordering: .relaxed) }
        set { value.store(newValue, ordering: .relaxed) }
    }
}

/// Produces captured samples for a software device.
///
/// Threading: called from one pump thread at a time; must not allocate.
package protocol SoftwareCaptureSource: AnyObject {
    /// Fills all of `buffer` (silence past the end); returns false once the source is exhausted.
    func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Bool
}

/// Consumes rendered samples for a software device.
///
/// Threading: called from one pump thread at a time; must not allocate.
package protocol SoftwareRenderSink: AnyObject {
    /// Takes one buffer of rendered samples (silence while the device is disabled).
    func consume(_ buffer: UnsafeBufferPointer<Int16>)
}

/// A pump as its device side drives it: ticked by a clock or run freely on its own thread.
protocol SoftwareAudioPumping: SoftwareAudioClockClient {
    /// Steps until the thread is asked to stop, the source ends, or `renderFrameLimit` frames are rendered.
    func runFreely(on thread: DeviceThread, renderFrameLimit: Int?)
}

/// Moves one direction of a software device: each step fills or drains one preallocated buffer.
///
/// Threading: `@unchecked Sendable` because its mutable state (`schedule`, `renderedFrames`,
/// the buffer) is only touched by the single thread driving it: the clock thread, serialized by
/// the registration's tick lock, or the pump's own free-running thread.
final class SoftwareAudioPump<Source: SoftwareCaptureSource, Sink: SoftwareRenderSink>: SoftwareAudioPumping, @unchecked Sendable {
    enum Direction {
        case capture(Source)
        case render(Sink)
    }
    private let direction: Direction
    private let context: any AudioDeviceContext
    private let enabled: AudioEnableFlag
    private let buffer: UnsafeMutableBufferPointer<Int16>
    private let channels: Int
    private var schedule: PacingSchedule
    private var renderedFrames = 0

    init(direction: Direction, format: AudioFormat, context: any AudioDeviceContext, enabled: AudioEnableFlag) {
        self.direction = direction
        self.context = context
        self.enabled = enabled
        self.channels = max(1, format.channels)
        self.buffer = .allocate(capacity: max(1, format.samplesPerBuffer))
        buffer.initialize(repeating: 0)
        self.schedule = PacingSchedule(bufferDuration: format.bufferDuration)
    }

    deinit { buffer.deallocate() }

    /// Runs as many steps as are due at `time`.
    func clockDidTick(at time: MediaTime) {
        let due = schedule.buffersDue(at: time)
        for _ in 0..<due { _ = step() }
    }

    /// Moves one buffer; returns false when a capture source is exhausted.
    @discardableResult
    func step() -> Bool {
        switch direction {
        case let .capture(source):
            var more = true
            if enabled.isEnabled {
                more = source.fill(buffer)
            } else {
                buffer.update(repeating: 0)
            }
            context.deliverCapturedAudio(UnsafeBufferPointer(buffer))
            return more
        case let .render(sink):
            context.readRenderAudio(into: buffer)
            if !enabled.isEnabled { buffer.update(repeating: 0) }
            sink.consume(UnsafeBufferPointer(buffer))
            renderedFrames += buffer.count / channels
            return true
        }
    }

    /// The free-running loop: steps until stopped, the source ends, or `renderFrameLimit` frames are rendered.
    func runFreely(on thread: DeviceThread, renderFrameLimit: Int?) {
        while !thread.shouldStop {
            if let limit = renderFrameLimit, renderedFrames >= limit { return }
            guard step() else { return }
        }
    }
}

/// One direction (capture or render) of a software device: started on a clock or a thread, stopped idempotently.
///
/// Threading: thread-safe; `stop` returns once the pump no longer runs (a concurrent second
/// `stop` may return before the first finishes waiting).
final class SoftwareDeviceSide: Sendable {
    private enum Running {
        case clock(SoftwareAudioClock, SoftwareAudioClock.Registration)
        case thread(DeviceThread)
    }
    private let running = Locked<Running?>(nil)
    private let label: String

    init(label: String) { self.label = label }

    /// Starts `pump` under `pacing`, on the clock's `phase` if the pacing is a clock. Throws
    /// ``AudioDeviceError/Kind/alreadyStarted`` if running. `prepare` runs first, under the lock,
    /// only when the side is idle (e.g. rewinding a source).
    func start(
        _ pump: any SoftwareAudioPumping, pacing: SoftwareAudioPacing, phase: Int? = nil, prepare: () -> Void = {}
    ) throws(AudioDeviceError) {
        try running.withLock { slot throws(AudioDeviceError) in
            guard slot == nil else { throw AudioDeviceError(kind: .alreadyStarted, message: "\(label) already started") }
            prepare()
            switch pacing.mode {
            case let .clock(clock):
                slot = .clock(clock, try clock.register(pump, phase: phase))
            case let .freeRunning(limit):
                slot = .thread(try DeviceThread.start(name: label) { thread in pump.runFreely(on: thread, renderFrameLimit: limit) })
            }
        }
    }

    /// Whether the side was started and not yet stopped.
    var isRunning: Bool { running.withLock { $0 != nil } }

    /// Stops the pump and waits until it no longer runs. Idempotent.
    func stop() {
        guard
            let taken = running.withLock({ slot -> Running? in
                defer { slot = nil }
                return slot
            })
        else { return }
        switch taken {
        case let .clock(clock, registration): clock.unregister(registration)
        case let .thread(thread): thread.stopAndJoin()
        }
    }
}

/// A capture source or render sink that does nothing: silence in, render discarded.
package final class SilenceAudioEndpoint: SoftwareCaptureSource, SoftwareRenderSink {
    package init() {}
    package func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        buffer.update(repeating: 0)
        return true
    }
    package func consume(_ buffer: UnsafeBufferPointer<Int16>) {}
}
