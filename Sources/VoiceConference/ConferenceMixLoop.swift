import Dispatch
import Synchronization
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// The clock thread's side of a ``ConferenceBridge``: the mixer, one ``ConferenceSlot`` per
/// participant, the encoding groups, and the half-period schedule. Only the clock thread touches
/// it (the bridge's registration runs one tick at a time), except the talking flags, which it
/// publishes. Buffers are allocated once: a tick allocates nothing.
final class ConferenceMixLoop: @unchecked Sendable {
    // @unchecked: see above; `post` is set once, before the first tick.
    let mixer: ConferenceMixer
    let sharesEncoding: Bool
    let figures = ConferenceBridgeFigures()
    /// Hands a command to the bridge's inbox (from the encoder queue).
    var post: @Sendable (ConferenceBridgeCommand) -> Void = { _ in }
    /// Commands taken from the inbox, worked off at the tick.
    var commands: [ConferenceBridgeCommand] = []

    private var slots: [ConferenceSlot?]
    /// Where the room's mix is recorded.
    private var recordingTap: RecordingTap?
    private let talking: [TalkingFlag]
    private let talkChanged: @Sendable (_ slot: Int, _ talking: Bool) -> Void
    private var talkChanges: [(slot: Int, talking: Bool)] = []
    /// The groups, at stable indices (a slot caches its group's), and the groups asked for.
    private var groups: [ConferenceEncodingGroup?]
    private var requested: [(key: SharedEncodingKey, phase: Int)] = []
    /// Half periods: the mix on one, the odd slots' exchange on the other. After a stall,
    /// up to 50 ms are caught up (five mixes), as a 10 ms device does.
    private var schedule = PacingSchedule(bufferDuration: .milliseconds(5), maxCatchUp: 10)
    private var mixesNext = true
    /// Mixes so far (the first is 1).
    private var mixes = 0
    private let silence: UnsafeMutableBufferPointer<Int16>
    /// Each slot's frame being gathered (``ConferenceSlot/maximumFramePeriods`` periods each).
    private let frames: UnsafeMutableBufferPointer<Int16>
    /// The shared mix of the last ``ConferenceSlot/maximumFramePeriods`` mixes, by mix number,
    /// and one frame of it put together for a group's encoder.
    private let history: UnsafeMutableBufferPointer<Int16>
    private let groupFrame: UnsafeMutableBufferPointer<Int16>

    /// Groups a room keeps at most (distinct encodings × frame phases).
    static let groupCapacity = 32
    /// How long an announced level stands for the periods after it, in periods.
    static let announcedLevelLifetime = 6
    private static let period = ConferenceMixer.frameLength
    private static let frameCapacity = ConferenceSlot.maximumFramePeriods * ConferenceMixer.frameLength

    init(capacity: Int, sharesEncoding: Bool, talkChanged: @escaping @Sendable (_ slot: Int, _ talking: Bool) -> Void) {
        mixer = ConferenceMixer(capacity: capacity)
        let n = mixer.capacity
        self.sharesEncoding = sharesEncoding
        self.talkChanged = talkChanged
        slots = Array(repeating: nil, count: n)
        talking = (0..<n).map { _ in TalkingFlag() }
        groups = Array(repeating: nil, count: Self.groupCapacity)
        commands.reserveCapacity(64)
        talkChanges.reserveCapacity(n)
        requested.reserveCapacity(Self.groupCapacity)
        silence = .allocate(capacity: Self.period)
        silence.initialize(repeating: 0)
        frames = .allocate(capacity: n * Self.frameCapacity)
        frames.initialize(repeating: 0)
        history = .allocate(capacity: Self.frameCapacity)
        history.initialize(repeating: 0)
        groupFrame = .allocate(capacity: Self.frameCapacity)
        groupFrame.initialize(repeating: 0)
    }

    deinit {
        silence.deallocate()
        frames.deallocate()
        history.deallocate()
        groupFrame.deallocate()
    }

    func isTalking(_ slot: Int) -> Bool { talking.indices.contains(slot) && talking[slot].value.load(ordering: .relaxed) }

    // MARK: - Commands

    /// Works off ``commands``, in the order they were posted.
    func takeCommands() {
        for command in commands {
            switch command {
            case .attach(let slot, let port):
                guard slots.indices.contains(slot), mixer.join(slot) else { continue }
                slots[slot] = ConferenceSlot(port: port)
            case .detach(let slot):
                guard slots.indices.contains(slot) else { continue }
                slots[slot] = nil
                mixer.leave(slot)
                talking[slot].value.store(false, ordering: .relaxed)
            case .mute(let slot, let muted):
                mixer.setMuted(slot, muted)
            case .levelSource(let slot, let source):
                guard slots.indices.contains(slot), slots[slot] != nil else { continue }
                slots[slot]?.levelSource = source
                slots[slot]?.levelCount = source?.read().count ?? 0
                slots[slot]?.periodsSinceLevel = .max
            case .addGroup(let handoff):
                add(handoff.group)
            case .recording(let handoff):
                recordingTap = handoff.tap
            case .groupFailed:
                break  // Stays asked for: its listeners keep their own encodes.
            }
        }
        commands.removeAll(keepingCapacity: true)
    }

    private func add(_ group: ConferenceEncodingGroup) {
        requested.removeAll { $0.key == group.key && $0.phase == group.phase }
        var index = groups.firstIndex { $0 == nil }
        if index == nil, let idle = groups.indices.min(by: { (groups[$0]?.wantedAtMix ?? .min) < (groups[$1]?.wantedAtMix ?? .min) }),
            let old = groups[idle], mixes - old.wantedAtMix > ConferenceEncodingGroup.keepsEncodingFor
        {
            Self.release(old)
            index = idle
        }
        guard let index else { return Self.release(group) }
        groups[index] = group
    }

    /// Lets `group` go on the encoder queue (freeing an encoder is no work for the clock thread).
    private static func release(_ group: ConferenceEncodingGroup) {
        let handoff = ConferenceEncodingGroupHandoff(group: group)
        encoderQueue.async { _ = handoff }
    }

    static let encoderQueue = DispatchQueue(label: "voice-conference-encoders")

    /// Asks the encoder queue for a group for `key` at `phase` (once).
    private func request(_ key: SharedEncodingKey, phase: Int) {
        guard !requested.contains(where: { $0.key == key && $0.phase == phase }), requested.count < Self.groupCapacity else { return }
        requested.append((key, phase))
        let post = self.post
        Self.encoderQueue.async {
            do throws(MediaCodecError) {
                post(.addGroup(ConferenceEncodingGroupHandoff(group: try ConferenceEncodingGroup(key: key, phase: phase))))
            } catch {
                post(.groupFailed(key, phase: phase))
            }
        }
    }

    // MARK: - Periods

    func tick(at time: MediaTime) {
        let due = schedule.buffersDue(at: time)
        for _ in 0..<due {
            if mixesNext {
                mixPeriod()
            } else {
                // The odd slots' half: what the last mix made for them, and their next input.
                var slot = 1
                while slot < slots.count {
                    if slots[slot] != nil {
                        serve(slot)
                        slots[slot]?.port.pull(into: mixer.input(slot))
                    }
                    slot += 2
                }
            }
            mixesNext.toggle()
        }
        for change in talkChanges { talkChanged(change.slot, change.talking) }
        talkChanges.removeAll(keepingCapacity: true)
    }

    /// Pulls the even slots, mixes everyone (the odd slots' inputs were pulled half a period
    /// ago), encodes the groups whose frames end here, serves the even slots.
    private func mixPeriod() {
        var slot = 0
        while slot < slots.count {
            slots[slot]?.port.pull(into: mixer.input(slot))
            slot += 2
        }
        for slot in slots.indices where slots[slot] != nil { takeAnnouncedLevel(slot) }
        mixer.mix()
        mixes &+= 1
        keepSharedMix()
        recordingTap?.recordSent(mixer.sharedOutput)
        if sharesEncoding { encodeGroups() }
        for slot in slots.indices where slots[slot] != nil {
            if slot.isMultiple(of: 2) { serve(slot) }
            if let change = mixer.takeTalkChange(slot) {
                talking[slot].value.store(change, ordering: .relaxed)
                talkChanges.append((slot, change))
            }
        }
        figures.periods.add(1, ordering: .relaxed)
    }

    private func takeAnnouncedLevel(_ slot: Int) {
        guard let source = slots[slot]?.levelSource, var s = slots[slot] else { return }
        let (count, level) = source.read()
        if count != s.levelCount, let level {
            s.levelCount = count
            s.level = level
            s.periodsSinceLevel = 0
        } else if s.periodsSinceLevel < Int.max {
            s.periodsSinceLevel += 1
        }
        if s.periodsSinceLevel < Self.announcedLevelLifetime { mixer.reportLevel(slot, dBov: s.level) }
        slots[slot] = s
    }

    /// Keeps this mix's shared output for the groups' frames.
    private func keepSharedMix() {
        let offset = (mixes % ConferenceSlot.maximumFramePeriods) * Self.period
        _ = UnsafeMutableBufferPointer(rebasing: history[offset..<(offset + Self.period)]).update(fromContentsOf: mixer.sharedOutput)
    }

    /// Encodes, for each group whose frames end on this mix and that a listener wanted lately,
    /// the shared mix of the frame's periods.
    private func encodeGroups() {
        for index in groups.indices {
            guard let group = groups[index], group.isDue(atMix: mixes), mixes >= group.periods else { continue }
            for p in 0..<group.periods {
                let mix = mixes - group.periods + 1 + p
                let from = (mix % ConferenceSlot.maximumFramePeriods) * Self.period
                _ = UnsafeMutableBufferPointer(rebasing: groupFrame[(p * Self.period)..<((p + 1) * Self.period)])
                    .update(fromContentsOf: history[from..<(from + Self.period)])
            }
            group.encode(UnsafeBufferPointer(rebasing: groupFrame[0..<(group.periods * Self.period)]), mix: mixes)
            figures.groupEncodes.add(1, ordering: .relaxed)
        }
    }

    /// Adds the last mix's output for `index` to its frame; a whole frame goes to its port, as
    /// its group's encode when it heard only the shared mix long enough, else as samples.
    private func serve(_ index: Int) {
        guard var slot = slots[index] else { return }
        if case .waiting = slot.framing {
            guard ConferenceBridge.mayStart(index, mixes) else { return }
            slot.framing = .gathering(period: 0, heardShared: true)
        }
        guard case .gathering(let period, let heard) = slot.framing else { return }
        if period == 0, let (key, version) = slot.port.sharedEncoding(ifNewerThan: slot.encodingVersion) {
            slot.encoding = key
            slot.encodingVersion = version
            slot.group = nil
        }
        let periods = slot.framePeriods
        let enabled = slot.port.isEnabled
        let frameStart = index * Self.frameCapacity
        _ = UnsafeMutableBufferPointer(rebasing: frames[(frameStart + period * Self.period)..<(frameStart + (period + 1) * Self.period)])
            .update(fromContentsOf: enabled ? mixer.output(index) : UnsafeBufferPointer(silence))
        let heardShared = heard && enabled && mixer.hearsSharedMix(index)
        guard period + 1 == periods else {
            slot.framing = .gathering(period: period + 1, heardShared: heardShared)
            slots[index] = slot
            return
        }
        slot.framing = .gathering(period: 0, heardShared: true)
        slot.quietFrames = heardShared ? slot.quietFrames &+ 1 : 0
        var sent = false
        if sharesEncoding, heardShared, let key = slot.encoding, key.ptime == periods * 10 {
            let phase = mixes % periods
            if let group = group(for: key, phase: phase, cached: &slot.group) {
                group.wantedAtMix = mixes
                if slot.quietFrames > ConferenceBridge.quietFramesBeforeSharing, group.encodedAtMix == mixes {
                    sent = slot.port.deliverEncoded(group.payload, samples: periods * Self.period, peak: group.peak, level: group.level)
                }
            } else {
                request(key, phase: phase)
            }
        }
        if sent {
            figures.sharedFrames.add(1, ordering: .relaxed)
        } else {
            slot.port.deliver(UnsafeBufferPointer(rebasing: frames[frameStart..<(frameStart + periods * Self.period)]))
            figures.privateFrames.add(1, ordering: .relaxed)
        }
        slots[index] = slot
    }

    /// The group for `key` at `phase`, trying the slot's `cached` index first.
    private func group(for key: SharedEncodingKey, phase: Int, cached: inout Int?) -> ConferenceEncodingGroup? {
        if let index = cached, let group = groups[index], group.phase == phase, group.key == key { return group }
        for index in groups.indices {
            guard let group = groups[index], group.phase == phase, group.key == key else { continue }
            cached = index
            return group
        }
        cached = nil
        return nil
    }
}

/// A participant's talking, published by the clock thread.
final class TalkingFlag: Sendable {
    let value = Atomic<Bool>(false)
}
