import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
import VoiceSupport

/// One direction (capture or render) of a ``SharedAudioDevice``: the context the underlying
/// device runs with, fanning captured audio out to, or mixing render audio in from, the contexts
/// of the ports subscribed to it.
///
/// Locking: no context is ever called while a lock of this side is held. `subscribers` is held
/// only to edit the list (control threads) or to copy it (the device thread: a copy of an array
/// only retains its storage, so it allocates nothing); the callbacks then run on the copy, outside
/// it. The device thread takes it with `withLockIfAvailable` for audio and, when a control thread
/// is editing the list at that moment, skips the period (captured audio is dropped for every
/// port, silence is played): it never waits on a control thread. Each subscriber has a small
/// lock of its own (`calling`) held only while its context is called; an unsubscribe marks the
/// subscriber inactive, then takes and releases that lock, so once it returns the context is no
/// longer called. For audio the device thread only tries that lock: a control thread holding
/// it has already marked the subscriber inactive, so the subscriber is skipped, not waited for.
/// Events (xrun, failure) are rare and must not be lost, so their delivery waits for the locks;
/// each wait is bounded by one list edit or one callback. `control` serializes
/// subscribe/unsubscribe and reopen attempts with starting and stopping the underlying device;
/// the device thread never takes it. `recovery` (the interruption) is held only for a few
/// assignments.
///
/// Interruptions: when the device fails, every port is told
/// ``AudioDeviceEvent/interrupted(capture:_:)`` and the device is reopened on the
/// ``AudioDeviceReopenSchedule`` until it runs (``AudioDeviceEvent/resumed(capture:)``) or the
/// last port leaves: once for all the ports, whichever call they belong to.
///
/// A context may stop its port from inside one of this side's callbacks: the subscriber is then
/// marked inactive (never called again) and dropped from the list by the next control-thread
/// operation on this side (another port's start or stop, or the port's own stop or release on
/// another thread).
///
/// `@unchecked Sendable`: `scratch` is only touched by the render callback, on the device's
/// render thread; everything else is a lock or an atomic.
final class SharedAudioDeviceSide: AudioDeviceContext, @unchecked Sendable {
    enum Direction: CustomStringConvertible {
        case capture, render
        var description: String { self == .capture ? "capture" : "render" }
    }

    /// One port's context on this side.
    final class Subscriber: Sendable {
        let port: ObjectIdentifier
        let context: any AudioDeviceContext
        /// Cleared by a stop; inactive subscribers are skipped.
        let active = Atomic<Bool>(true)
        /// Held while the context is called, so a stop can wait out a call in progress.
        private let calling = Locked<Int>(0)

        init(port: ObjectIdentifier, context: any AudioDeviceContext) {
            self.port = port
            self.context = context
        }

        var isActive: Bool { active.load(ordering: .acquiring) }

        /// Calls `body` with the context unless the subscriber is inactive. For audio
        /// (`waiting` false) a stop in progress skips it rather than being waited for.
        @inline(__always)
        func call(waiting: Bool, _ body: (any AudioDeviceContext) -> Void) {
            guard isActive else { return }
            if waiting {
                calling.withLock { _ in if isActive { body(context) } }
            } else {
                _ = calling.withLockIfAvailable { _ in if isActive { body(context) } }
            }
        }

        /// Marks the subscriber inactive and returns once no call of its context is in progress.
        func deactivateAndWait() {
            active.store(false, ordering: .releasing)
            calling.withLock { _ in }
        }
    }

    let direction: Direction
    private let device: any AudioDevice
    private let subscribers: Locked<[Subscriber]>
    /// Whether the underlying device runs this direction.
    private let control = Locked<Bool>(false)
    /// Set when the device reports a failure, cleared when a reopen starts it.
    private let failed = Atomic<Bool>(false)
    /// The interruption and its reopen attempts. Held only for a few assignments, never while
    /// calling out, so the device thread may take it when it fails.
    private let recovery = Locked(Recovery())
    private let schedule: AudioDeviceReopenSchedule
    /// The thread inside this side's callbacks right now (0: none), to recognise a stop from a callback.
    private let dispatchingThread = Atomic<UInt>(0)
    /// Render mixing buffer: one device period, allocated here so the device thread never allocates.
    private let scratch: UnsafeMutableBufferPointer<Int16>
    /// The device's voice processing: capture is processed before the fan-out, the render mix
    /// is its reference.
    private let processing: DeviceAudioProcessing?

    private struct Recovery {
        /// Why the direction is interrupted; nil while it runs (or nobody uses it).
        var interruption: AudioDeviceError?
        /// Reopen attempts that failed since the interruption began.
        var attempts = 0
        /// Whether an attempt is scheduled.
        var pending = false
        /// Bumped when the last port leaves, so an attempt scheduled before is dropped.
        var generation = 0
        /// Interruptions begun and ended so far.
        var interruptions = 0
    }

    init(
        direction: Direction, device: any AudioDevice, schedule: AudioDeviceReopenSchedule = .standard,
        processing: DeviceAudioProcessing? = nil
    ) {
        self.direction = direction
        self.processing = processing
        self.device = device
        self.schedule = schedule
        var list: [Subscriber] = []
        list.reserveCapacity(8)  // So adding a port rarely allocates while holding the device thread's lock.
        self.subscribers = Locked(list)
        let period = direction == .render ? (device.renderFormat?.samplesPerBuffer ?? 0) : 0
        self.scratch = .allocate(capacity: max(1, period))
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    /// Ports currently subscribed (and not stopped from a callback).
    var subscriberCount: Int { subscribers.withLock { list in list.count(where: { $0.isActive }) } }

    /// Whether the underlying device is running this direction for the hub.
    var isDeviceRunning: Bool { control.withLock { $0 } }

    /// Why this direction is interrupted, nil while it runs or is not in use.
    var interruption: AudioDeviceError? { recovery.withLock { $0.interruption } }

    /// Interruptions begun so far.
    var interruptionCount: Int { recovery.withLock { $0.interruptions } }

    private var isCapture: Bool { direction == .capture }

    // MARK: - Control side

    /// Subscribes `context` for `port`; starts the underlying device for the first subscriber.
    ///
    /// A device that cannot open for a reason that may pass (``AudioDeviceError/isTransient``:
    /// busy, unplugged, sound server away) still subscribes the port: it is told
    /// ``AudioDeviceEvent/interrupted(capture:_:)`` at once and the device is reopened with
    /// backoff. A port joining an interrupted direction is told the same.
    ///
    /// - Throws: ``AudioDeviceError/Kind/alreadyStarted`` if `port` is subscribed, or what
    ///   starting the underlying device throws when that is not transient (the port is then
    ///   not subscribed).
    func subscribe(_ port: ObjectIdentifier, context: any AudioDeviceContext) throws(AudioDeviceError) -> Subscriber {
        guard !isDispatchingOnCurrentThread else {
            throw AudioDeviceError(kind: .ioFailed, message: "shared \(direction) port started from inside a \(direction) callback")
        }
        let subscriber = Subscriber(port: port, context: context)
        // The interruption the new port joins, told to it once the locks are released.
        let joined = try control.withLock { running throws(AudioDeviceError) -> AudioDeviceError? in
            let added = subscribers.withLock { list -> Bool in
                list.removeAll { !$0.isActive }
                guard !list.contains(where: { $0.port == port }) else { return false }
                list.append(subscriber)
                return true
            }
            guard added else { throw AudioDeviceError(kind: .alreadyStarted, message: "shared \(direction) port already started") }
            if let interruption = recovery.withLock({ $0.interruption }) {
                // A reopen is scheduled; it resumes this port with the others.
                return interruption
            }
            guard !running || failed.load(ordering: .acquiring) else { return nil }
            if running {
                stopDevice()  // It failed and stopped by itself; stopping resets it for a fresh start.
                running = false
            }
            failed.store(false, ordering: .releasing)
            do throws(AudioDeviceError) {
                try startDevice()
                running = true
                return nil
            } catch where error.isTransient {
                beginInterruption(error)
                return error
            } catch {
                subscribers.withLock { list in list.removeAll { $0 === subscriber } }
                throw error
            }
        }
        if let joined {
            let event = AudioDeviceEvent.interrupted(capture: isCapture, joined)
            dispatching { subscriber.call(waiting: true) { $0.audioDevice(didReport: event) } }
        }
        return subscriber
    }

    /// Unsubscribes `subscriber`; stops the underlying device when no subscriber is left.
    /// Returns once its context is no longer called. Idempotent.
    ///
    /// - Returns: false when called from inside one of this side's callbacks: the subscriber is
    ///   then only marked inactive (never called again) and stays listed until a later call from
    ///   another thread, or another port's start or stop, removes it.
    @discardableResult
    func unsubscribe(_ subscriber: Subscriber) -> Bool {
        // Inside a callback this thread is the one calling: waiting for the call would never end.
        guard !isDispatchingOnCurrentThread else {
            subscriber.active.store(false, ordering: .releasing)
            return false
        }
        subscriber.deactivateAndWait()
        control.withLock { running in
            let empty = subscribers.withLock { list -> Bool in
                list.removeAll { !$0.isActive }
                return list.isEmpty
            }
            guard empty else { return }
            endRecovery()
            guard running else { return }
            stopDevice()
            running = false
        }
        return true
    }

    /// Stops the underlying device if it runs for this side, whoever is subscribed (hub teardown).
    func shutDown() {
        control.withLock { running in
            endRecovery()
            guard running else { return }
            stopDevice()
            running = false
        }
    }

    // MARK: - Recovery

    /// Records `error` as the interruption and schedules a reopen if none is.
    private func beginInterruption(_ error: AudioDeviceError) {
        recovery.withLock { r in
            if r.interruption == nil { r.interruptions += 1 }
            r.interruption = error
            scheduleReopen(&r)
        }
    }

    private func scheduleReopen(_ r: inout Recovery) {
        guard !r.pending else { return }
        r.pending = true
        let generation = r.generation
        schedule.run(schedule.delay(beforeAttempt: r.attempts)) { [weak self] in self?.reopen(generation) }
    }

    /// Drops the interruption and any scheduled attempt (no port uses the direction any more).
    private func endRecovery() {
        recovery.withLock { r in
            r.generation += 1
            r.interruption = nil
            r.attempts = 0
            r.pending = false
        }
    }

    /// One reopen attempt: stops what is left of the failed device and starts it again. On
    /// success every port is told ``AudioDeviceEvent/resumed(capture:)``; otherwise the next
    /// attempt is scheduled.
    private func reopen(_ generation: Int) {
        let resumed = control.withLock { running -> Bool in
            let current = recovery.withLock { r -> Bool in
                guard r.generation == generation else { return false }
                r.pending = false
                return r.interruption != nil
            }
            guard current, subscriberCount > 0 else { return false }
            if running {
                stopDevice()
                running = false
            }
            failed.store(false, ordering: .releasing)
            // Cleared first: the restarted device may fail again at once, and that must stick.
            let previous = recovery.withLock { r -> AudioDeviceError? in
                defer { r.interruption = nil }
                return r.interruption
            }
            do throws(AudioDeviceError) {
                try startDevice()
                running = true
            } catch {
                recovery.withLock { r in
                    r.interruption = error
                    r.attempts += 1
                    scheduleReopen(&r)
                }
                return false
            }
            guard previous != nil else { return false }
            recovery.withLock { r in if r.interruption == nil { r.attempts = 0 } }
            return true
        }
        // Told outside the locks. A device that failed again already told the ports; its
        // interruption goes on.
        guard resumed, !failed.load(ordering: .acquiring) else { return }
        let event = AudioDeviceEvent.resumed(capture: isCapture)
        let list = subscribers.withLock { $0 }
        dispatching {
            for i in list.indices { list[i].call(waiting: true) { $0.audioDevice(didReport: event) } }
        }
    }

    private func startDevice() throws(AudioDeviceError) {
        switch direction {
        case .capture: try device.startCapturing(context: self)
        case .render: try device.startRendering(context: self)
        }
    }

    private func stopDevice() {
        switch direction {
        case .capture: device.stopCapturing()
        case .render: device.stopRendering()
        }
    }

    // MARK: - Device thread

    func deliverCapturedAudio(_ captured: UnsafeBufferPointer<Int16>) {
        guard direction == .capture else { return }
        // Processed even when the period is then dropped, so the processor sees continuous audio.
        let samples = processing?.processCapture(captured) ?? captured
        guard let list = subscribers.withLockIfAvailable({ $0 }) else { return }
        dispatching {
            // Index loops: a for-in over the array allocates an iterator in unoptimized builds.
            for i in list.indices { list[i].call(waiting: false) { $0.deliverCapturedAudio(samples) } }
        }
    }

    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
        guard direction == .render else {
            samples.update(repeating: 0)
            return
        }
        guard let list = subscribers.withLockIfAvailable({ $0 }) else {
            samples.update(repeating: 0)
            processing?.analyzeRender(UnsafeBufferPointer(samples))
            return
        }
        dispatching { mix(list, into: samples) }
        processing?.analyzeRender(UnsafeBufferPointer(samples))
    }

    func audioDevice(didReport reported: AudioDeviceEvent) {
        var event = reported
        if case .failed(let error) = reported {
            // The ports hear an interruption, not the failure: the device is reopened for them.
            failed.store(true, ordering: .releasing)
            beginInterruption(error)
            event = .interrupted(capture: isCapture, error)
        }
        let list = subscribers.withLock { $0 }
        dispatching {
            for i in list.indices { list[i].call(waiting: true) { $0.audioDevice(didReport: event) } }
        }
    }

    /// Fills `out` with the saturating sum of every active subscriber's render audio. One
    /// subscriber reads straight into `out`; with more, the buffer is processed in chunks of
    /// `scratch` so a callback asking for more than one period still never allocates.
    private func mix(_ list: [Subscriber], into out: UnsafeMutableBufferPointer<Int16>) {
        var active = 0
        var only: Subscriber?
        for i in list.indices where list[i].isActive {
            active += 1
            only = list[i]
        }
        guard active > 1 else {
            out.update(repeating: 0)
            only?.call(waiting: false) { $0.readRenderAudio(into: out) }
            return
        }
        var offset = 0
        while offset < out.count {
            let n = min(scratch.count, out.count - offset)
            let chunk = UnsafeMutableBufferPointer(rebasing: out[offset..<(offset + n)])
            let addend = UnsafeMutableBufferPointer(rebasing: scratch[0..<n])
            chunk.update(repeating: 0)
            for i in list.indices {
                list[i].call(waiting: false) { context in
                    context.readRenderAudio(into: addend)
                    for k in 0..<n { chunk[k] = Int16(clamping: Int32(chunk[k]) + Int32(addend[k])) }
                }
            }
            offset += n
        }
    }

    // MARK: - Callbacks from inside callbacks

    private var isDispatchingOnCurrentThread: Bool {
        dispatchingThread.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Runs `body` marked as this side's dispatch on the current thread.
    private func dispatching<R>(_ body: () -> R) -> R {
        let previous = dispatchingThread.exchange(UInt(pthread_self()), ordering: .acquiringAndReleasing)
        defer { dispatchingThread.store(previous, ordering: .releasing) }
        return body()
    }
}
