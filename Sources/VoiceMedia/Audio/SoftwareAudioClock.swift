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
/// Phases: on a clock with ``phases`` > 1, a client may start on a given phase, the first tick
/// whose index is that phase modulo ``phases``; its ``PacingSchedule`` keeps that phase from
/// there. Software devices take phases spread by ``nextPhase()``, capture and render of one
/// device the same one, as a duplex sound card's directions share its clock. Devices on one
/// clock would otherwise all deliver and pull their buffers in the same instant, so every
/// stream's encode and decode would land on the same media-engine tick while the ticks between
/// them idle; spread over a codec frame, the work is spread too, as it is with sound cards,
/// whose periods start wherever they start.
///
/// Threading: ``register(_:)`` and ``unregister(_:)`` are thread-safe. Once `unregister` returns,
/// the client is never ticked again (called on the clock thread itself, from inside a tick, it
/// returns at once and the current tick is the last).
package final class SoftwareAudioClock: Sendable {
    /// The process-wide clock software devices use by default: 5 ms ticks (the media engine's),
    /// devices started on four phases spread over 20 ms (a codec frame).
    package static let shared = SoftwareAudioClock(period: .milliseconds(5), phases: 4, name: "voice-audio-clk")

    /// Time between ticks.
    package let period: MediaTime
    /// Distinct start phases (1: every client starts at the next tick).
    package let phases: Int
    /// Thread name (at most 15 bytes are used).
    package let name: String

    private struct State {
        var registrations: [Registration] = []
        var thread: DeviceThread?
        var threadRunning = false
    }
    private let state = Locked(State())
    private let phaseCounter = Atomic<Int>(0)
    /// Ticked by its owner (``tick(at:)``) instead of a thread of its own.
    private let isManual: Bool
    /// A manual clock's next tick index, for the phases.
    private let manualIndex = Atomic<Int>(0)

    /// Creates a clock ticking every `period` (must be positive) with `phases` start phases, on
    /// a thread of its own.
    package init(period: MediaTime = .milliseconds(10), phases: Int = 1, name: String = "voice-audio-clk") {
        precondition(period.nanoseconds > 0, "clock period must be positive")
        self.period = period
        self.phases = max(1, phases)
        self.name = name
        self.isManual = false
    }

    /// Creates a clock with no thread: its owner calls ``tick(at:)`` every `period` (the
    /// embedded media engine, in virtual time).
    package init(manualPeriod period: MediaTime, phases: Int = 1, name: String) {
        precondition(period.nanoseconds > 0, "clock period must be positive")
        self.period = period
        self.phases = max(1, phases)
        self.name = name
        self.isManual = true
    }

    /// A manual clock's tick: every registered client is ticked at `time`, on the caller's thread.
    package func tick(at time: MediaTime) {
        precondition(isManual, "only a manual clock is ticked by its owner")
        let index = manualIndex.add(1, ordering: .relaxed).oldValue % phases
        let snapshot = state.withLock { $0.registrations }
        for registration in snapshot { registration.tick(at: time, phase: index) }
    }

    /// The phase for the next device, nil on a clock with one phase. The n-th device gets
    /// `⌊frac(n × φ) × phases⌋` (φ the golden ratio's fractional part): consecutive devices get
    /// far-apart phases, and so does every n-th device, so the devices a media-engine worker ends
    /// up with (every second one on two workers, every fourth on four) are spread too.
    package func nextPhase() -> Int? {
        guard phases > 1 else { return nil }
        let n = phaseCounter.add(1, ordering: .relaxed).oldValue
        let fraction = (Double(n % 1_000_003) * 0.618_033_988_749_894_9).truncatingRemainder(dividingBy: 1)
        return min(phases - 1, Int(fraction * Double(phases)))
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
        /// The phase of the first tick (nil: the next tick).
        let phase: Int?

        init(client: any SoftwareAudioClockClient, phase: Int?) {
            self.client = client
            self.phase = phase
        }

        /// False once unregistered.
        package var isActive: Bool { active.load(ordering: .acquiring) }

        /// Ticks the client; `phase` is this tick's phase (its index modulo the clock's phases).
        func tick(at time: MediaTime, phase tickPhase: Int) {
            ticks.withLock { count in
                guard active.load(ordering: .acquiring) else { return }
                if count == 0, let phase, phase != tickPhase { return }
                client.clockDidTick(at: time)
                count &+= 1
            }
        }
    }

    /// Adds `client`; it is ticked from the next tick on, or from the next tick of `phase`
    /// (taken modulo ``phases``).
    ///
    /// - Throws: ``AudioDeviceError/Kind/ioFailed`` if the clock thread cannot start.
    @discardableResult
    package func register(_ client: any SoftwareAudioClockClient, phase: Int? = nil) throws(AudioDeviceError) -> Registration {
        let registration = Registration(client: client, phase: phase.map { (($0 % phases) + phases) % phases })
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
        var index = 0
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
                registration.tick(at: deadline.current, phase: index)
            }
            index = index + 1 == phases ? 0 : index + 1
            PeriodicDeadline.sleep(until: deadline.advance(now: clock.now()))
        }
        thread.stopAndJoin()  // Detaches: nobody joins the clock thread.
    }
}
