import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
import VoiceSupport

/// Something ticked by a ``SoftwareAudioClock`` every period.
///
/// Threading: called on the clock's thread, one tick at a time; must return quickly and not
/// block, since every device on the clock shares the thread.
package protocol SoftwareAudioClockClient: AnyObject, Sendable {
    /// One clock period elapsed; `time` is the tick's scheduled (ideal) ``MonotonicMediaClock`` time.
    func clockDidTick(at time: MediaTime)
}

/// One real-time thread that paces many software audio devices, so hundreds of devices do not
/// need hundreds of threads.
///
/// The thread sleeps to absolute deadlines (`clock_nanosleep(TIMER_ABSTIME)` on
/// `CLOCK_MONOTONIC`) one ``period`` apart, so it does not drift; after a stall of more than
/// ten periods it restarts its timeline from now. It starts on the first registration and exits
/// when the last registration is removed.
///
/// Threading: ``register(_:)`` and ``unregister(_:)`` are thread-safe. Once `unregister` returns,
/// the client is never ticked again (called on the clock thread itself, from inside a tick, it
/// returns at once and the current tick is the last).
package final class SoftwareAudioClock: Sendable {
    /// The process-wide clock with 10 ms periods that software devices use by default.
    package static let shared = SoftwareAudioClock(period: .milliseconds(10), name: "voice-audio-clk")

    /// Time between ticks.
    package let period: MediaTime
    /// Thread name (at most 15 bytes are used).
    package let name: String

    private struct State {
        var registrations: [Registration] = []
        var thread: DeviceThread?
        var threadRunning = false
    }
    private let state = Locked(State())
    /// Ticked by its owner (``tick(at:)``) instead of a thread of its own.
    private let isManual: Bool

    /// Creates a clock ticking every `period` (must be positive) on a thread of its own.
    package init(period: MediaTime = .milliseconds(10), name: String = "voice-audio-clk") {
        precondition(period.nanoseconds > 0, "clock period must be positive")
        self.period = period
        self.name = name
        self.isManual = false
    }

    /// Creates a clock with no thread: its owner calls ``tick(at:)`` every `period` (the
    /// embedded media engine, in virtual time).
    package init(manualPeriod period: MediaTime, name: String) {
        precondition(period.nanoseconds > 0, "clock period must be positive")
        self.period = period
        self.name = name
        self.isManual = true
    }

    /// A manual clock's tick: every registered client is ticked at `time`, on the caller's thread.
    package func tick(at time: MediaTime) {
        precondition(isManual, "only a manual clock is ticked by its owner")
        let snapshot = state.withLock { $0.registrations }
        for registration in snapshot { registration.tick(at: time) }
    }

    /// Number of registered clients.
    package var clientCount: Int { state.withLock { $0.registrations.count } }

    /// A client's membership in the clock; pass it to ``SoftwareAudioClock/unregister(_:)``.
    package final class Registration: Sendable {
        let client: any SoftwareAudioClockClient
        let active = Atomic<Bool>(true)
        /// The ticks delivered; its lock is held while the client ticks, so unregistering can
        /// wait out a tick in progress.
        let ticks = Locked<UInt64>(0)

        init(client: any SoftwareAudioClockClient) { self.client = client }

        /// False once unregistered.
        package var isActive: Bool { active.load(ordering: .acquiring) }

        func tick(at time: MediaTime) {
            ticks.withLock { count in
                guard active.load(ordering: .acquiring) else { return }
                client.clockDidTick(at: time)
                count &+= 1
            }
        }
    }

    /// Adds `client`; it is ticked from the next period on.
    ///
    /// - Throws: ``AudioDeviceError/Kind/ioFailed`` if the clock thread cannot start.
    @discardableResult
    package func register(_ client: any SoftwareAudioClockClient) throws(AudioDeviceError) -> Registration {
        let registration = Registration(client: client)
        let needsThread = state.withLock { s -> Bool in
            s.registrations.append(registration)
            guard !isManual, !s.threadRunning else { return false }
            s.threadRunning = true
            return true
        }
        if needsThread {
            do {
                _ = try DeviceThread.start(name: name) { [self] thread in run(thread) }
            } catch {
                state.withLock { s in
                    s.threadRunning = false
                    s.registrations.removeAll { $0 === registration }
                }
                throw error
            }
        }
        return registration
    }

    /// Removes a registration. Idempotent. Returns once the client's last tick has finished.
    package func unregister(_ registration: Registration) {
        registration.active.store(false, ordering: .releasing)
        let onClockThread = state.withLock { s -> Bool in
            s.registrations.removeAll { $0 === registration }
            return s.thread?.isCurrent ?? false
        }
        if !onClockThread {
            registration.ticks.withLock { _ in }  // Wait out a tick in progress.
        }
    }

    private func run(_ thread: DeviceThread) {
        let clock = MonotonicMediaClock()
        var deadline = PeriodicDeadline(start: clock.now(), period: period, resyncAfterPeriods: 10)
        // Set here, before the first tick, so a client unregistering from inside a tick is recognised.
        state.withLock { $0.thread = thread }
        while true {
            // Copying the array only retains its storage: no allocation per tick.
            let snapshot: [Registration]? = state.withLock { s in
                guard !s.registrations.isEmpty else {
                    s.threadRunning = false
                    if s.thread === thread { s.thread = nil }
                    return nil
                }
                return s.registrations
            }
            guard let snapshot else { break }
            for registration in snapshot {
                registration.tick(at: deadline.current)
            }
            PeriodicDeadline.sleep(until: deadline.advance(now: clock.now()))
        }
        thread.stopAndJoin()  // Detaches: nobody joins the clock thread.
    }
}
