import CMallocCounter
import VoiceTestAudio
import XCTest

@testable import VoiceConference

/// The mixer on its own, period by period (no clock): N−1 mixes checked tone by tone with
/// Goertzel, the limiter on rooms too loud for 16 bits, the cost of silent and muted
/// participants, talk detection, and no allocation while mixing.
final class ConferenceMixerTests: XCTestCase {
    private let length = ConferenceMixer.frameLength

    /// A participant playing a steady tone; `phase` counts samples written so far.
    private struct Tone {
        var frequency: Double
        var amplitude: Double
        var phase = 0
        mutating func write(into buffer: UnsafeMutableBufferPointer<Int16>) {
            for i in buffer.indices {
                buffer[i] = Int16((amplitude * sin(2 * .pi * frequency * Double(phase) / 48_000)).rounded())
                phase += 1
            }
        }
    }

    /// Runs `periods` periods: `feed` writes each slot's input, then the mix; returns what each slot heard.
    private func run(
        _ mixer: ConferenceMixer, slots: [Int], periods: Int, feed: (Int, Int, UnsafeMutableBufferPointer<Int16>) -> Void
    ) -> [Int: [Int16]] {
        var heard: [Int: [Int16]] = [:]
        for period in 0..<periods {
            for slot in slots { feed(period, slot, mixer.input(slot)) }
            mixer.mix()
            for slot in slots { heard[slot, default: []] += Array(mixer.output(slot)) }
        }
        return heard
    }

    func testEachParticipantHearsEveryoneButItself() throws {
        let frequencies: [Double] = [400, 600, 850, 1_100, 1_450, 1_900]
        let mixer = ConferenceMixer(capacity: 8)
        let slots = frequencies.map { _ in mixer.join()! }
        var tones = frequencies.map { Tone(frequency: $0, amplitude: 4_000) }
        let heard = run(mixer, slots: slots, periods: 50) { _, slot, buffer in tones[slot].write(into: buffer) }
        for (listener, slot) in slots.enumerated() {
            let samples = try XCTUnwrap(heard[slot])
            for (talker, frequency) in frequencies.enumerated() {
                let amplitude = ToneAmplitude.of(frequency, in: samples)
                if talker == listener {
                    XCTAssertLessThan(amplitude, 1, "\(listener) hears itself at \(frequency) Hz")
                } else {
                    XCTAssertEqual(amplitude, 4_000, accuracy: 80, "\(listener) hears \(talker) at \(frequency) Hz")
                }
            }
        }
    }

    func testTheLimiterKeepsALoudRoomInRangeWithoutWrapAroundAndRecovers() throws {
        // Six participants at 30 000, starting in phase: the others' sum reaches 150 000.
        let frequencies: [Double] = [300, 700, 1_100, 1_500, 1_900, 2_300]
        let mixer = ConferenceMixer(capacity: 6)
        let slots = frequencies.map { _ in mixer.join()! }
        var tones = frequencies.map { Tone(frequency: $0, amplitude: 30_000) }
        var ideal: [Int: [Int32]] = [:]
        let loud = run(mixer, slots: slots, periods: 100) { _, slot, buffer in
            tones[slot].write(into: buffer)
        }
        // The ideal sums, to compare signs with (a wrap-around flips them).
        var replay = frequencies.map { Tone(frequency: $0, amplitude: 30_000) }
        var inputs = [[Int16]](repeating: [], count: slots.count)
        for slot in slots {
            let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 100 * length)
            defer { buffer.deallocate() }
            replay[slot].write(into: buffer)
            inputs[slot] = Array(buffer)
        }
        for slot in slots {
            ideal[slot] = (0..<(100 * length)).map { i in slots.filter { $0 != slot }.reduce(Int32(0)) { $0 + Int32(inputs[$1][i]) } }
        }
        for slot in slots {
            let samples = try XCTUnwrap(loud[slot])
            let want = try XCTUnwrap(ideal[slot])
            XCTAssertLessThanOrEqual(samples.map { Int32($0).magnitude }.max() ?? 0, UInt32(ConferenceLimiter.ceiling), "never above the ceiling")
            let flipped = zip(samples, want).filter { Int64($0) * Int64($1) < 0 && abs($1) > 2_000 }.count
            XCTAssertEqual(flipped, 0, "no sample has the opposite sign of the true sum (wrap-around)")
            XCTAssertLessThan(ToneAmplitude.of(frequencies[slot], in: samples), ToneAmplitude.of(frequencies[(slot + 1) % 6], in: samples) / 20, "still not itself")
        }
        // The loud ones stop; one quiet talker is left. The shared mix was limited to about 0.18:
        // at 0.025 per 10 ms the gain is back to unity within 330 ms.
        let quiet = slots[0]
        var talker = Tone(frequency: 700, amplitude: 3_000)
        let after = run(mixer, slots: slots, periods: 50) { _, slot, buffer in
            if slot == quiet { talker.write(into: buffer) } else { buffer.update(repeating: 0) }
        }
        let listener = try XCTUnwrap(after[slots[3]])
        XCTAssertEqual(ToneAmplitude.of(700, in: listener.suffix(15 * length)), 3_000, accuracy: 60, "gain back to unity")
        XCTAssertLessThan(ToneAmplitude.of(700, in: listener.prefix(10 * length)), 1_500, "and not at once (no pumping step)")
    }

    func testSilentAndMutedParticipantsCostNearlyNothing() throws {
        let mixer = ConferenceMixer(capacity: 60)
        let slots = (0..<50).map { _ in mixer.join()! }
        var a = Tone(frequency: 440, amplitude: 5_000), b = Tone(frequency: 1_000, amplitude: 5_000)
        let heard = run(mixer, slots: slots, periods: 20) { _, slot, buffer in
            switch slot {
            case slots[0]: a.write(into: buffer)
            case slots[1]: b.write(into: buffer)
            default: buffer.update(repeating: 0)
            }
        }
        // The sum of two talkers, the shared mix, and each talker's own: 5 frames of work for 50.
        XCTAssertEqual(mixer.samplesProcessed, 5 * length)
        XCTAssertTrue(mixer.hearsSharedMix(slots[30]))
        XCTAssertFalse(mixer.hearsSharedMix(slots[0]))
        XCTAssertEqual(ToneAmplitude.of(440, in: heard[slots[30]]!), 5_000, accuracy: 100)
        XCTAssertEqual(ToneAmplitude.of(1_000, in: heard[slots[30]]!), 5_000, accuracy: 100)
        // Muted: its tone is gone for everybody, it costs nothing, and it still hears the other.
        mixer.setMuted(slots[0], true)
        let muted = run(mixer, slots: slots, periods: 20) { _, slot, buffer in
            switch slot {
            case slots[0]: a.write(into: buffer)
            case slots[1]: b.write(into: buffer)
            default: buffer.update(repeating: 0)
            }
        }
        XCTAssertEqual(mixer.samplesProcessed, 3 * length)
        XCTAssertLessThan(ToneAmplitude.of(440, in: muted[slots[30]]!), 1)
        XCTAssertLessThan(ToneAmplitude.of(440, in: muted[slots[1]]!), 1)
        XCTAssertEqual(ToneAmplitude.of(1_000, in: muted[slots[0]]!), 5_000, accuracy: 100, "the muted one hears")
        XCTAssertEqual(mixer.level(slots[0]), ConferenceMixer.floorLevel)
        // Nobody talking: one frame of work.
        _ = run(mixer, slots: slots, periods: 1) { _, _, buffer in buffer.update(repeating: 0) }
        XCTAssertEqual(mixer.samplesProcessed, length)
    }

    func testTalkDetectionFollowsLevelsWithHysteresis() throws {
        let mixer = ConferenceMixer(capacity: 2)
        let slot = mixer.join()!
        var tone = Tone(frequency: 300, amplitude: 3_000)  // about −24 dBFS
        var changes: [(Int, Bool)] = []
        // 1 s of "speech" with two 200 ms pauses, then 1 s of silence.
        for period in 0..<200 {
            let speaking = period < 100 && !(30..<50).contains(period) && !(70..<90).contains(period)
            if speaking { tone.write(into: mixer.input(slot)) } else { mixer.input(slot).update(repeating: 0) }
            mixer.mix()
            if let change = mixer.takeTalkChange(slot) { changes.append((period, change)) }
            XCTAssertNil(mixer.takeTalkChange(slot), "a change is read once")
        }
        XCTAssertEqual(changes.map(\.1), [true, false], "pauses between words do not flap: \(changes)")
        XCTAssertEqual(changes.first?.0, 2, "talking after 30 ms of speech")
        XCTAssertEqual(changes.last?.0, 159, "silent 600 ms after the last word")
        // A level announced in the packets (RFC 6464) decides instead of the measured one.
        for _ in 0..<3 {
            mixer.input(slot).update(repeating: 0)
            mixer.reportLevel(slot, dBov: 20)
            mixer.mix()
        }
        XCTAssertTrue(mixer.isTalking(slot))
    }

    func testCapacityJoinAndLeave() throws {
        let mixer = ConferenceMixer(capacity: 3)
        let slots = (0..<3).map { _ in mixer.join() }
        XCTAssertEqual(slots, [0, 1, 2])
        XCTAssertNil(mixer.join(), "full")
        XCTAssertEqual(mixer.participantCount, 3)
        var leaving = Tone(frequency: 900, amplitude: 4_000)
        _ = run(mixer, slots: [0, 1, 2], periods: 5) { _, slot, buffer in
            if slot == 2 { leaving.write(into: buffer) } else { buffer.update(repeating: 0) }
        }
        mixer.leave(2)
        let after = run(mixer, slots: [0, 1], periods: 10) { _, _, buffer in buffer.update(repeating: 0) }
        XCTAssertEqual(after[0]?.map { Int($0).magnitude }.max(), 0, "one who left is not heard")
        XCTAssertEqual(mixer.join(), 2, "its slot is free again")
        XCTAssertEqual(mixer.input(2).map { Int($0).magnitude }.max(), 0, "with its input cleared")
    }

    func testMixingAllocatesNothing() throws {
        try XCTSkipUnless(voice_malloc_counter_is_counting() == 1, "a sanitizer build counts no allocations")
        let mixer = ConferenceMixer(capacity: 12)
        for _ in 0..<10 { _ = mixer.join() }
        var tones = (0..<10).map { Tone(frequency: 300 + 100 * Double($0), amplitude: 8_000) }
        // Ranges, not arrays, in the counted loop: iterating an array allocates in a debug build.
        for _ in 0..<10 {
            for slot in 0..<10 { tones[slot].write(into: mixer.input(slot)) }
            mixer.mix()
        }
        voice_malloc_counter_track_current_thread(1)
        let before = voice_malloc_counter_tracked_count()
        for period in 0..<200 {
            for slot in 0..<10 { tones[slot].write(into: mixer.input(slot)) }
            if period == 100 { mixer.setMuted(3, true) }
            mixer.mix()
            for slot in 0..<10 { _ = mixer.takeTalkChange(slot) }
        }
        let after = voice_malloc_counter_tracked_count()
        voice_malloc_counter_track_current_thread(0)
        XCTAssertEqual(after - before, 0, "heap allocations in 200 mixed periods")
    }
}
