import Foundation
import VoiceRTP

/// N−1 mixing for one conference room, 10 ms at a time at 48 kHz, the way a conference bridge
/// (pjsip's `pjmedia_conf`, baresip's mixer) does it: every participant hears the sum of all
/// the others, never itself.
///
/// Each period the driver writes every participant's decoded audio into its ``input(_:)``,
/// calls ``mix()``, and reads what each should hear from ``output(_:)``. The sum is taken once,
/// in 32 bits, over the participants that carry sound; a talker's own mix is that sum minus its
/// own input; everybody else (silent, muted) hears the whole sum, computed once and shared. So
/// the cost grows with the talkers, not with the room: a silent or muted participant costs a
/// level measurement (muted: nothing). Every output goes through a ``ConferenceLimiter``: no
/// clipping, no wrap-around.
///
/// Buffers are allocated once, for ``capacity`` participants: mixing allocates nothing. Not
/// thread-safe: one driver thread owns it (deliberately not `Sendable`).
package final class ConferenceMixer {
    /// Samples per period: 10 ms at 48 kHz.
    package static let frameLength = 480
    /// Below this level (dBFS) a participant's period is treated as silence: not added to the mix.
    package static let silenceLevel = -60.0
    /// The RFC 6464 level (−dBov) from which a participant's announced frame is below
    /// ``silenceLevel``: its stream need not decode it.
    package static let announcedSilenceDBov = 61
    /// The level reported for a muted participant or a silent period.
    package static let floorLevel = AudioFrameLevel.floorDBFS

    /// The most participants the mixer holds.
    package let capacity: Int
    private let inputs: UnsafeMutableBufferPointer<Int16>
    private let outputs: UnsafeMutableBufferPointer<Int16>
    private let shared: UnsafeMutableBufferPointer<Int16>
    private let sum: UnsafeMutableBufferPointer<Int32>
    private let scratch: UnsafeMutableBufferPointer<Int32>
    private var slots: [Slot]
    private var sharedLimiter = ConferenceLimiter()
    /// Samples added or limited in the last ``mix()``: the work it did, for tests and benchmarks.
    package private(set) var samplesProcessed = 0

    private struct Slot {
        var active = false
        var muted = false
        var contributing = false
        var level = ConferenceMixer.floorLevel
        var reportedLevel: Double?
        var detector = TalkDetector()
        var talkChange: Bool?
        var limiter = ConferenceLimiter()
    }

    /// Creates a mixer for at most `capacity` participants (at least 1).
    package init(capacity: Int) {
        let capacity = max(1, capacity)
        self.capacity = capacity
        let length = Self.frameLength
        inputs = .allocate(capacity: capacity * length)
        inputs.initialize(repeating: 0)
        outputs = .allocate(capacity: capacity * length)
        outputs.initialize(repeating: 0)
        shared = .allocate(capacity: length)
        shared.initialize(repeating: 0)
        sum = .allocate(capacity: length)
        sum.initialize(repeating: 0)
        scratch = .allocate(capacity: length)
        scratch.initialize(repeating: 0)
        slots = Array(repeating: Slot(), count: capacity)
    }

    deinit {
        inputs.deallocate()
        outputs.deallocate()
        shared.deallocate()
        sum.deallocate()
        scratch.deallocate()
    }

    /// Participants in the mix.
    package var participantCount: Int { slots.reduce(0) { $0 + ($1.active ? 1 : 0) } }

    /// Takes a free slot for a new participant (silent, unmuted, its input zeroed).
    /// - Returns: the slot, or nil when the mixer is full.
    package func join() -> Int? {
        guard let slot = slots.firstIndex(where: { !$0.active }) else { return nil }
        slots[slot] = Slot()
        slots[slot].active = true
        input(slot).update(repeating: 0)
        return slot
    }

    /// Takes `slot` for a new participant (silent, unmuted, its input zeroed), where the driver
    /// chose it; false if it is out of range or taken.
    package func join(_ slot: Int) -> Bool {
        guard slots.indices.contains(slot), !slots[slot].active else { return false }
        slots[slot] = Slot()
        slots[slot].active = true
        input(slot).update(repeating: 0)
        return true
    }

    /// Frees `slot`; its participant is no longer mixed.
    package func leave(_ slot: Int) {
        guard slots.indices.contains(slot) else { return }
        slots[slot] = Slot()
    }

    /// Whether `slot` holds a participant.
    package func isActive(_ slot: Int) -> Bool { slots.indices.contains(slot) && slots[slot].active }

    /// A muted participant is not heard (and costs nothing); it still hears the others.
    package func setMuted(_ slot: Int, _ muted: Bool) {
        guard isActive(slot) else { return }
        slots[slot].muted = muted
    }

    package func isMuted(_ slot: Int) -> Bool { isActive(slot) && slots[slot].muted }

    /// Where the driver writes `slot`'s next 10 ms (48 kHz mono) before ``mix()``.
    package func input(_ slot: Int) -> UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(rebasing: inputs[(slot * Self.frameLength)..<((slot + 1) * Self.frameLength)])
    }

    /// A level the participant's own packets announced for the next period (RFC 6464, in
    /// −dBov: 0 loudest, 127 silence); used for talk detection instead of the measured level.
    package func reportLevel(_ slot: Int, dBov: Int) {
        guard isActive(slot) else { return }
        slots[slot].reportedLevel = -Double(min(127, max(0, dBov)))
    }

    /// What `slot` hears this period: the others' mix, limited.
    package func output(_ slot: Int) -> UnsafeBufferPointer<Int16> {
        guard isActive(slot), slots[slot].contributing else { return UnsafeBufferPointer(shared) }
        return UnsafeBufferPointer(rebasing: outputs[(slot * Self.frameLength)..<((slot + 1) * Self.frameLength)])
    }

    /// What every participant that added nothing this period hears: the whole mix, limited.
    package var sharedOutput: UnsafeBufferPointer<Int16> { UnsafeBufferPointer(shared) }

    /// Whether `slot` hears the shared mix of everyone (it added nothing this period).
    package func hearsSharedMix(_ slot: Int) -> Bool { !(isActive(slot) && slots[slot].contributing) }

    /// The level (dBFS) of `slot`'s last period, ``floorLevel`` when muted.
    package func level(_ slot: Int) -> Double { isActive(slot) ? slots[slot].level : Self.floorLevel }

    /// Whether `slot`'s participant is talking (hysteresis over the levels).
    package func isTalking(_ slot: Int) -> Bool { isActive(slot) && slots[slot].detector.isTalking }

    /// The talking state `slot` changed to in the last ``mix()``, or nil; read once.
    package func takeTalkChange(_ slot: Int) -> Bool? {
        guard isActive(slot), let change = slots[slot].talkChange else { return nil }
        slots[slot].talkChange = nil
        return change
    }

    /// Mixes one period: reads every input, writes every output.
    package func mix() {
        let length = Self.frameLength
        var processed = 0
        sum.update(repeating: 0)
        for slot in slots.indices where slots[slot].active {
            let wasContributing = slots[slot].contributing
            var level = Self.floorLevel
            if !slots[slot].muted {
                level = Self.level(of: UnsafeBufferPointer(input(slot)))
            }
            let contributing = level >= Self.silenceLevel
            slots[slot].level = level
            slots[slot].contributing = contributing
            let detected = slots[slot].muted ? Self.floorLevel : (slots[slot].reportedLevel ?? level)
            slots[slot].reportedLevel = nil
            if let change = slots[slot].detector.update(levelDBFS: detected) { slots[slot].talkChange = change }
            guard contributing else { continue }
            // It heard the shared mix until now: its own limiter continues from that gain.
            if !wasContributing { slots[slot].limiter = sharedLimiter }
            let own = input(slot)
            for i in 0..<length { sum[i] &+= Int32(own[i]) }
            processed += length
        }
        sharedLimiter.limit(UnsafeBufferPointer(sum), into: shared)
        processed += length
        for slot in slots.indices where slots[slot].active && slots[slot].contributing {
            let own = input(slot)
            for i in 0..<length { scratch[i] = sum[i] &- Int32(own[i]) }
            let out = UnsafeMutableBufferPointer(rebasing: outputs[(slot * length)..<((slot + 1) * length)])
            slots[slot].limiter.limit(UnsafeBufferPointer(scratch), into: out)
            processed += length
        }
        samplesProcessed = processed
    }

    /// RMS level of `samples` in dBFS (full-scale sine: −3), ``floorLevel`` for silence.
    package static func level(of samples: UnsafeBufferPointer<Int16>) -> Double { AudioFrameLevel.dBFS(samples) }
}
