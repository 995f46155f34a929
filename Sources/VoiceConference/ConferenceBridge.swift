import Dispatch
import Synchronization
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// One room's audio: a ``ConferenceMixer`` whose participants are ``ConferencePort``s, mixed
/// every 10 ms on a ``SoftwareAudioClock`` (a real-time thread, or the embedded media engine's
/// clock in virtual time).
///
/// Each period it pulls every port's render audio (what that participant said, already decoded
/// by its call's stream in its own codec and at its own clock, out of its jitter buffer) into
/// the mixer, mixes, and gathers each participant's N−1 mix into a frame of its call's codec
/// (20 ms for Opus at its default ptime). A whole frame goes to the port's capture side:
///
/// - **Listeners share one encode.** A participant that heard only the shared mix for the whole
///   frame (it added nothing: silent or muted), and for ``quietFramesBeforeSharing`` frames
///   before, gets the frame already encoded by its ``ConferenceEncodingGroup``: one encoder per
///   encoding and frame phase, which encodes the shared mix once for all of them, as Asterisk's
///   ConfBridge does. Its call's stream packetizes and protects the payload as its own.
/// - **Talkers get their own.** Anyone whose frame held its own voice gets the samples of its
///   private mix (the sum without itself), which its stream encodes. The frame is gathered
///   before this is decided, so a talker never hears itself, not even the first 10 ms.
///
/// Two half-period groups: the even slots are pulled and pushed at the mix, the odd slots half
/// a period (5 ms) away from it: pushed the last mix and pulled for the next one 5 ms after it.
/// Each leg's stream decodes when its port has pulled enough, so ports all served in the same
/// instant would put every leg's decoding on the same media-engine ticks; half a period apart
/// they spread over all four (and each slot's frames end on one of two mixes, slot / 2 modulo
/// 2). The cost is 5 ms more delay each way for the odd slots.
///
/// Threading: thread-safe, and the clock thread never waits for a control thread. Attach,
/// detach, mute and level sources are posted to an inbox the clock thread takes at its next
/// tick (it only tries the inbox's lock); talking is published through atomics, and the
/// talk-changed callback runs after the period's work. Encoders for new groups are made on a
/// queue of their own and handed over the same way. Mixing allocates nothing.
final class ConferenceBridge: SoftwareAudioClockClient, @unchecked Sendable {
    // @unchecked: `control` and `inbox` are behind their locks; `loop` is the clock thread's
    // alone (its registration runs one tick at a time); the rest is immutable or atomic.

    /// Whether the bridge ticks.
    private enum ClockState {
        case stopped
        /// An attach is registering with the clock (outside the lock).
        case starting
        case running(SoftwareAudioClock.Registration)
    }

    /// What the control threads keep: which slots are taken and muted, and the clock.
    private struct Control {
        var occupied: [Bool]
        var muted: [Bool]
        var clock = ClockState.stopped
    }
    private let control: Locked<Control>
    private let inbox: Locked<[ConferenceBridgeCommand]>
    private let pendingCommands = Atomic<Int>(0)
    private let loop: ConferenceMixLoop
    private let clock: SoftwareAudioClock
    private let measuresLateness: Bool

    /// Periods mixed.
    var periods: Int { loop.figures.periods.load(ordering: .relaxed) }
    /// Frames the participants got as the shared encode, and as samples of their own mix.
    var figures: ConferenceBridgeFigures { loop.figures }
    /// Ticks that came more than two periods late (on a real-time clock only). One period late
    /// is absorbed: the next tick mixes both periods, and each leg's stream buffers what its
    /// port delivers (a 10 ms scheduling hiccup of a loaded machine is no late frame for anyone);
    /// two periods late, the participants' audio is late too.
    let lateTicks = Atomic<Int>(0)
    /// The latest a tick came, in microseconds (real-time clock only).
    let maximumLatenessMicroseconds = Atomic<Int>(0)

    /// Frames in a row a participant hears only the shared mix before it gets the shared encode
    /// (200 ms): a talker's pauses between words do not move it back and forth.
    static let quietFramesBeforeSharing = 10

    /// A bridge for at most `capacity` participants on `clock`; `measuresLateness` compares the
    /// clock's tick times with the monotonic clock (false for a virtual clock). With
    /// `sharesEncoding` false every participant's call encodes its own mix (the per-leg
    /// baseline). `talkChanged` is called on the clock thread, after the period's work, when
    /// a participant starts (true) or stops talking; it must not block.
    init(
        capacity: Int, clock: SoftwareAudioClock, measuresLateness: Bool, sharesEncoding: Bool = true,
        talkChanged: @escaping @Sendable (_ slot: Int, _ talking: Bool) -> Void
    ) {
        loop = ConferenceMixLoop(capacity: capacity, sharesEncoding: sharesEncoding, talkChanged: talkChanged)
        let n = loop.mixer.capacity
        control = Locked(Control(occupied: Array(repeating: false, count: n), muted: Array(repeating: false, count: n)))
        var commands: [ConferenceBridgeCommand] = []
        commands.reserveCapacity(64)
        inbox = Locked(commands)
        self.clock = clock
        self.measuresLateness = measuresLateness
        loop.post = { [weak self] command in self?.post(command) }
    }

    /// Seats `port`; the bridge starts ticking with its first participant.
    /// - Returns: its slot, or nil when the room is full.
    /// - Throws: ``AudioDeviceError`` when the clock's thread cannot start.
    func attach(_ port: ConferencePort) throws(AudioDeviceError) -> Int? {
        let (slot, needsClock) = control.withLock { c -> (Int?, Bool) in
            guard let slot = c.occupied.firstIndex(of: false) else { return (nil, false) }
            c.occupied[slot] = true
            c.muted[slot] = false
            guard case .stopped = c.clock else { return (slot, false) }
            c.clock = .starting
            return (slot, true)
        }
        guard let slot else { return nil }
        post(.attach(slot: slot, port: port))
        guard needsClock else { return slot }
        do {
            let registration = try clock.register(self)
            control.withLock { $0.clock = .running(registration) }
        } catch {
            control.withLock { $0.clock = .stopped }
            detach(slot)
            throw error
        }
        return slot
    }

    /// Frees `slot`: from the next tick its port is no longer pulled or pushed.
    func detach(_ slot: Int) {
        let taken = control.withLock { c -> Bool in
            guard c.occupied.indices.contains(slot), c.occupied[slot] else { return false }
            c.occupied[slot] = false
            c.muted[slot] = false
            return true
        }
        if taken { post(.detach(slot: slot)) }
    }

    /// Stops ticking (the room ended). Returns once no tick runs.
    func stop() {
        let registration = control.withLock { c -> SoftwareAudioClock.Registration? in
            guard case .running(let registration) = c.clock else { return nil }
            c.clock = .stopped
            return registration
        }
        if let registration { clock.unregister(registration) }
    }

    func setMuted(_ slot: Int, _ muted: Bool) {
        let changed = control.withLock { c -> Bool in
            guard c.occupied.indices.contains(slot), c.occupied[slot], c.muted[slot] != muted else { return false }
            c.muted[slot] = muted
            return true
        }
        if changed { post(.mute(slot: slot, muted)) }
    }

    func isMuted(_ slot: Int) -> Bool {
        control.withLock { c in c.muted.indices.contains(slot) && c.occupied[slot] && c.muted[slot] }
    }

    /// Whether `slot`'s participant is talking, as of the last mix.
    func isTalking(_ slot: Int) -> Bool { loop.isTalking(slot) }

    /// Records the room's mix (everyone who talks) into `tap` from the next mix; nil stops.
    func setRecording(_ tap: RecordingTap?) { post(.recording(RecordingTapHandoff(tap: tap))) }

    /// Reads `slot`'s talking from the RFC 6464 levels its peer announces, arriving at `source`,
    /// instead of from the audio's own level, while they keep coming (a level counts for 60 ms,
    /// three 20 ms packets; without one the measured level decides again).
    func setLevelSource(_ slot: Int, _ source: ReceivedAudioLevel?) { post(.levelSource(slot: slot, source)) }

    private func post(_ command: ConferenceBridgeCommand) {
        inbox.withLock { $0.append(command) }
        pendingCommands.add(1, ordering: .releasing)
    }

    func clockDidTick(at time: MediaTime) {
        if measuresLateness {
            let late = Int((MonotonicMediaClock().now() - time).nanoseconds / 1_000)
            if late > 20_000 { lateTicks.add(1, ordering: .relaxed) }
            if late > maximumLatenessMicroseconds.load(ordering: .relaxed) {
                maximumLatenessMicroseconds.store(late, ordering: .relaxed)
            }
        }
        if pendingCommands.load(ordering: .acquiring) > 0,
            inbox.withLockIfAvailable({ swap(&$0, &loop.commands) }) != nil
        {
            pendingCommands.subtract(loop.commands.count, ordering: .relaxed)
            loop.takeCommands()
        }
        loop.tick(at: time)
    }

    /// Whether `slot`'s port may take its first period from mix number `mixes` (the first is 1):
    /// slots 0 and 1 on odd mixes, 2 and 3 on even ones, and so on, so with the two half-period
    /// groups the legs' 20 ms frames end on four different 5 ms ticks (slot modulo 4).
    static func mayStart(_ slot: Int, _ mixes: Int) -> Bool { !(mixes + slot / 2).isMultiple(of: 2) }
}

/// What a bridge did, for tests and the benchmark.
final class ConferenceBridgeFigures: Sendable {
    /// Periods mixed.
    let periods = Atomic<Int>(0)
    /// Frames participants got as their group's shared encode, and as samples of their own.
    let sharedFrames = Atomic<Int>(0)
    let privateFrames = Atomic<Int>(0)
    /// Frames the groups encoded.
    let groupEncodes = Atomic<Int>(0)
}
