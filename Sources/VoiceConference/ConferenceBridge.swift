import Synchronization
import VoiceMedia
import VoiceSupport

/// One room's audio: a ``ConferenceMixer`` whose participants are ``ConferencePort``s, mixed
/// every 10 ms on a ``SoftwareAudioClock`` (a real-time thread, or the embedded media engine's
/// clock in virtual time).
///
/// Each period it pulls every port's render audio (what that participant said, already decoded
/// by its call's stream in its own codec and at its own clock, out of its jitter buffer) into
/// the mixer, mixes, and pushes each participant's N−1 mix into its port's capture side (which
/// its call encodes for it). The mixer never sees codecs or clocks.
///
/// Two half-period groups: the even slots are pulled and pushed at the mix, the odd slots half
/// a period (5 ms) away from it: pushed the last mix and pulled for the next one 5 ms after it.
/// Each leg's stream decodes when its port has pulled enough and encodes when it has been pushed
/// a whole codec frame, so ports all served in the same instant would put every leg's decoding
/// and encoding on the same media-engine ticks (two of the four in a 20 ms frame) while the
/// others idle: with 30 participants those ticks ran 3–5 ms of CPU each, ran over, and left the
/// legs served last short of audio. Half a period apart, the legs spread over all four ticks,
/// as software devices do on the clock's phases. The cost is 5 ms more delay each way for the
/// odd slots.
///
/// Threading: thread-safe. The clock thread holds the bridge's lock while it mixes; the control
/// calls (attach, detach, mute) hold it for O(1) work only, so the mixing thread waits at most
/// that long for them. Mixing allocates nothing.
final class ConferenceBridge: SoftwareAudioClockClient, @unchecked Sendable {
    // @unchecked: `state` is behind its lock; the rest is immutable or atomic.
    /// @unchecked: the mixer (not thread-safe) is only used under the bridge's lock.
    private struct State: @unchecked Sendable {
        let mixer: ConferenceMixer
        var ports: [ConferencePort?]
        /// Where each slot's RFC 6464 levels arrive, the packets counted at the last period, the
        /// newest level, and the periods since it came.
        var levelSources: [ReceivedAudioLevel?]
        var levelCounts: [UInt64]
        var levels: [Int]
        var periodsSinceLevel: [Int]
        /// Half periods: the mix on one, the odd slots' exchange on the other. After a stall,
        /// up to 50 ms are caught up (five mixes), as a 10 ms device does.
        var schedule = PacingSchedule(bufferDuration: .milliseconds(5), maxCatchUp: 10)
        var mixesNext = true
        /// Mixes so far.
        var mixes = 0
        var registration: SoftwareAudioClock.Registration?
    }
    private let state: Locked<State>
    private let silence: UnsafeMutableBufferPointer<Int16>
    private let clock: SoftwareAudioClock
    private let measuresLateness: Bool
    /// Called on the clock thread when a participant starts (true) or stops talking; must not block.
    private let talkChanged: @Sendable (_ slot: Int, _ talking: Bool) -> Void

    /// Periods mixed.
    let periods = Atomic<Int>(0)
    /// Ticks that came more than two periods late (on a real-time clock only). One period late
    /// is absorbed: the next tick mixes both periods, and each leg's stream buffers what its
    /// port delivers (a 10 ms scheduling hiccup of a loaded machine is no late frame for anyone);
    /// two periods late, the participants' audio is late too.
    let lateTicks = Atomic<Int>(0)
    /// The latest a tick came, in microseconds (real-time clock only).
    let maximumLatenessMicroseconds = Atomic<Int>(0)

    /// A bridge for at most `capacity` participants on `clock`; `measuresLateness` compares the
    /// clock's tick times with the monotonic clock (false for a virtual clock).
    init(
        capacity: Int, clock: SoftwareAudioClock, measuresLateness: Bool,
        talkChanged: @escaping @Sendable (_ slot: Int, _ talking: Bool) -> Void
    ) {
        let mixer = ConferenceMixer(capacity: capacity)
        let n = mixer.capacity
        state = Locked(
            State(
                mixer: mixer, ports: Array(repeating: nil, count: n), levelSources: Array(repeating: nil, count: n),
                levelCounts: Array(repeating: 0, count: n), levels: Array(repeating: 127, count: n),
                periodsSinceLevel: Array(repeating: Int.max, count: n)))
        silence = .allocate(capacity: ConferenceMixer.frameLength)
        silence.initialize(repeating: 0)
        self.clock = clock
        self.measuresLateness = measuresLateness
        self.talkChanged = talkChanged
    }

    deinit { silence.deallocate() }

    /// Seats `port`; the bridge starts ticking with its first participant.
    /// - Returns: its slot, or nil when the room is full.
    /// - Throws: ``AudioDeviceError`` when the clock's thread cannot start.
    func attach(_ port: ConferencePort) throws(AudioDeviceError) -> Int? {
        let (slot, needsClock) = state.withLock { s -> (Int?, Bool) in
            guard let slot = s.mixer.join() else { return (nil, false) }
            s.ports[slot] = port
            return (slot, s.registration == nil)
        }
        guard let slot, needsClock else { return slot }
        do {
            let registration = try clock.register(self)
            state.withLock { $0.registration = registration }
        } catch {
            detach(slot)
            throw error
        }
        return slot
    }

    /// Frees `slot`; the port is no longer pulled or pushed once this returns.
    func detach(_ slot: Int) {
        state.withLock { s in
            guard s.ports.indices.contains(slot) else { return }
            s.ports[slot] = nil
            s.levelSources[slot] = nil
            s.periodsSinceLevel[slot] = .max
            s.mixer.leave(slot)
        }
    }

    /// Stops ticking (the room ended). Returns once no tick runs.
    func stop() {
        let registration = state.withLock { s -> SoftwareAudioClock.Registration? in
            defer { s.registration = nil }
            return s.registration
        }
        if let registration { clock.unregister(registration) }
    }

    func setMuted(_ slot: Int, _ muted: Bool) { state.withLock { $0.mixer.setMuted(slot, muted) } }
    func isMuted(_ slot: Int) -> Bool { state.withLock { $0.mixer.isMuted(slot) } }
    func isTalking(_ slot: Int) -> Bool { state.withLock { $0.mixer.isTalking(slot) } }
    /// Reads `slot`'s talking from the RFC 6464 levels its peer announces, arriving at `source`,
    /// instead of from the audio's own level, while they keep coming (a level counts for 60 ms,
    /// three 20 ms packets; without one the measured level decides again).
    func setLevelSource(_ slot: Int, _ source: ReceivedAudioLevel?) {
        state.withLock { s in
            guard s.ports.indices.contains(slot), s.ports[slot] != nil else { return }
            s.levelSources[slot] = source
            s.levelCounts[slot] = source?.read().count ?? 0
            s.periodsSinceLevel[slot] = .max
        }
    }

    /// How long an announced level stands for the periods after it, in periods.
    static let announcedLevelLifetime = 6

    func clockDidTick(at time: MediaTime) {
        if measuresLateness {
            let late = Int((MonotonicMediaClock().now() - time).nanoseconds / 1_000)
            if late > 20_000 { lateTicks.add(1, ordering: .relaxed) }
            if late > maximumLatenessMicroseconds.load(ordering: .relaxed) {
                maximumLatenessMicroseconds.store(late, ordering: .relaxed)
            }
        }
        let silence = UnsafeBufferPointer(self.silence)
        state.withLock { s in
            let due = s.schedule.buffersDue(at: time)
            for _ in 0..<due {
                if s.mixesNext {
                    mixPeriod(&s, silence: silence)
                } else {
                    // The odd slots' half: what the last mix made for them, and their next input.
                    var slot = 1
                    while slot < s.ports.count {
                        if let port = s.ports[slot] {
                            port.push(s.mixer.output(slot), silence: silence, mayStart: Self.mayStart(slot, s.mixes))
                            port.pull(into: s.mixer.input(slot))
                        }
                        slot += 2
                    }
                }
                s.mixesNext.toggle()
            }
        }
    }

    /// Whether `slot`'s port may take its first period from mix number `mixes` (the first is 1):
    /// slots 0 and 1 on odd mixes, 2 and 3 on even ones, and so on, so with the two half-period
    /// groups the legs' 20 ms frames end on four different 5 ms ticks (slot modulo 4).
    static func mayStart(_ slot: Int, _ mixes: Int) -> Bool { !(mixes + slot / 2).isMultiple(of: 2) }

    /// Pulls the even slots, mixes everyone (the odd slots' inputs were pulled half a period
    /// ago), pushes the even slots' mixes.
    private func mixPeriod(_ s: inout State, silence: UnsafeBufferPointer<Int16>) {
        var slot = 0
        while slot < s.ports.count {
            s.ports[slot]?.pull(into: s.mixer.input(slot))
            slot += 2
        }
        for slot in s.ports.indices where s.ports[slot] != nil {
            guard let source = s.levelSources[slot] else { continue }
            let (count, level) = source.read()
            if count != s.levelCounts[slot], let level {
                s.levelCounts[slot] = count
                s.levels[slot] = level
                s.periodsSinceLevel[slot] = 0
            } else if s.periodsSinceLevel[slot] < Int.max {
                s.periodsSinceLevel[slot] += 1
            }
            if s.periodsSinceLevel[slot] < Self.announcedLevelLifetime {
                s.mixer.reportLevel(slot, dBov: s.levels[slot])
            }
        }
        s.mixer.mix()
        s.mixes &+= 1
        for slot in s.ports.indices where s.ports[slot] != nil {
            if slot.isMultiple(of: 2), let port = s.ports[slot] {
                port.push(s.mixer.output(slot), silence: silence, mayStart: Self.mayStart(slot, s.mixes))
            }
            if let change = s.mixer.takeTalkChange(slot) { talkChanged(slot, change) }
        }
        periods.add(1, ordering: .relaxed)
    }
}
