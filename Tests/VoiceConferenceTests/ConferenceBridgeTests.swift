import CMallocCounter
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import XCTest

@testable import VoiceConference

/// The bridge on a manual audio clock (virtual time), with ports whose contexts stand in for
/// calls: each "call" plays a tone into its port and records what its port captures.
final class ConferenceBridgeTests: XCTestCase {
    /// What a call's stream would be to its port: renders a tone, records the captured mix.
    /// Buffers are made up front; the recording keeps the last 100 periods.
    private final class FakeCall: AudioDeviceContext, @unchecked Sendable {
        // @unchecked: called on the clock's thread only (the test's), read after.
        let frequency: Double
        private var phase = 0
        private(set) var recorded: UnsafeMutableBufferPointer<Int16>
        private var position = 0
        init(frequency: Double) {
            self.frequency = frequency
            recorded = .allocate(capacity: 48_000)
            recorded.initialize(repeating: 0)
        }
        deinit { recorded.deallocate() }

        func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
            for i in samples.indices {
                samples[i] = Int16((6_000 * sin(2 * .pi * frequency * Double(phase) / 48_000)).rounded())
                phase += 1
            }
        }
        func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
            for sample in samples {
                recorded[position] = sample
                position = (position + 1) % recorded.count
            }
        }
        func audioDevice(didReport event: AudioDeviceEvent) {}
        var lastSecond: [Int16] { Array(recorded) }
    }

    private func bridge(clock: SoftwareAudioClock, talk: Locked<[(Int, Bool)]>) -> ConferenceBridge {
        ConferenceBridge(capacity: 4, clock: clock, measuresLateness: false) { slot, talking in
            talk.withLock { $0.append((slot, talking)) }
        }
    }

    func testPortsHearEachOtherNotThemselvesAndStopWhenDetached() throws {
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(5), name: "test-conf")
        let talk = Locked<[(Int, Bool)]>([])
        let bridge = bridge(clock: clock, talk: talk)
        let calls = [FakeCall(frequency: 500), FakeCall(frequency: 700), FakeCall(frequency: 1_100)]
        var slots: [Int] = []
        for call in calls {
            let port = ConferencePort()
            try port.startRendering(context: call)
            try port.startCapturing(context: call)
            slots.append(try XCTUnwrap(try bridge.attach(port)))
        }
        var time = MediaTime.zero
        func run(seconds: Double) {
            for _ in 0..<Int(seconds * 200) {
                clock.tick(at: time)
                time = time + .milliseconds(5)
            }
        }
        run(seconds: 1.2)
        XCTAssertEqual(bridge.periods, 120, "one mix per 10 ms on a 5 ms clock")
        for call in calls {
            for other in calls {
                let amplitude = ToneAmplitude.of(other.frequency, in: call.lastSecond)
                if other === call {
                    XCTAssertLessThan(amplitude, 1, "\(call.frequency) hears itself")
                } else {
                    XCTAssertEqual(amplitude, 6_000, accuracy: 60, "\(call.frequency) hears \(other.frequency)")
                }
            }
        }
        XCTAssertEqual(Set(talk.withLock { $0 }.map(\.0)), Set(slots), "all three started talking")
        XCTAssertTrue(talk.withLock { $0 }.allSatisfy(\.1))

        // Muted: the others stop hearing 700 Hz, its own side still hears them.
        bridge.setMuted(slots[1], true)
        run(seconds: 1)
        XCTAssertLessThan(ToneAmplitude.of(700, in: calls[0].lastSecond), 1)
        XCTAssertEqual(ToneAmplitude.of(500, in: calls[1].lastSecond), 6_000, accuracy: 60)
        XCTAssertTrue(talk.withLock { $0 }.contains { $0 == (slots[1], false) }, "muted: stopped talking")
        bridge.setMuted(slots[1], false)

        // Detached: 1,100 Hz leaves every mix; its port is no longer driven.
        bridge.detach(slots[2])
        let before = calls[2].lastSecond
        run(seconds: 1)
        XCTAssertLessThan(ToneAmplitude.of(1_100, in: calls[0].lastSecond), 1)
        XCTAssertEqual(calls[2].lastSecond, before, "a detached port is not pushed")
        bridge.stop()
        XCTAssertEqual(clock.clientCount, 0)
    }

    /// A mixing period, in steady state, allocates nothing: pulling every port, mixing, pushing.
    func testMixingPeriodsAllocateNothing() throws {
        try XCTSkipUnless(voice_malloc_counter_is_counting() == 1, "a sanitizer build counts no allocations")
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: "test-conf")
        let talk = Locked<[(Int, Bool)]>([])
        let bridge = bridge(clock: clock, talk: talk)
        let calls = [FakeCall(frequency: 500), FakeCall(frequency: 700), FakeCall(frequency: 1_100), FakeCall(frequency: 1_300)]
        for call in calls {
            let port = ConferencePort()
            try port.startRendering(context: call)
            try port.startCapturing(context: call)
            _ = try bridge.attach(port)
        }
        var time = MediaTime.zero
        for _ in 0..<50 {  // Talk detection settles (its callbacks may allocate: they are events).
            clock.tick(at: time)
            time = time + .milliseconds(10)
        }
        // The bridge's tick itself, as the clock calls it (the manual clock's own loop over its
        // registrations is test scaffolding, and iterating an array allocates in a debug build).
        voice_malloc_counter_track_current_thread(1)
        let before = voice_malloc_counter_tracked_count()
        for _ in 0..<200 {
            bridge.clockDidTick(at: time)
            time = time + .milliseconds(10)
        }
        let after = voice_malloc_counter_tracked_count()
        voice_malloc_counter_track_current_thread(0)
        XCTAssertEqual(after - before, 0, "allocations in 200 mixing periods")
        bridge.stop()
    }

    /// A participant whose packets announce levels (RFC 6464) is talking or silent by them, not
    /// by its audio's level, while they come; then by its audio again.
    func testAnnouncedLevelsDecideTalkingWhileTheyCome() throws {
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: "test-conf")
        let talk = Locked<[(Int, Bool)]>([])
        let bridge = bridge(clock: clock, talk: talk)
        let loud = FakeCall(frequency: 500)
        let port = ConferencePort()
        try port.startRendering(context: loud)
        try port.startCapturing(context: loud)
        let slot = try XCTUnwrap(try bridge.attach(port))
        let levels = ReceivedAudioLevel()
        bridge.setLevelSource(slot, levels)
        var time = MediaTime.zero
        func run(periods: Int, announcing level: UInt8?) {
            for period in 0..<periods {
                // A 20 ms packet every other period.
                if let level, period % 2 == 0 { levels.publish(level) }
                clock.tick(at: time)
                time = time + .milliseconds(10)
            }
        }
        // The audio is a loud tone, but the peer says silence (127): not talking.
        run(periods: 100, announcing: 127)
        XCTAssertFalse(bridge.isTalking(slot), "announced silence wins over the measured tone")
        XCTAssertTrue(talk.withLock { $0 }.isEmpty)
        // It announces speech at −20 dBov: talking within 30 ms.
        run(periods: 4, announcing: 20)
        XCTAssertTrue(bridge.isTalking(slot))
        // Announcements stop: after 60 ms the measured level (the loud tone) decides: still talking.
        run(periods: 200, announcing: nil)
        XCTAssertTrue(bridge.isTalking(slot))
        XCTAssertEqual(talk.withLock { $0 }.map(\.1), [true])
        bridge.stop()
    }

    /// Records the clock tick of every pull and push its port makes.
    private final class TimedCall: AudioDeviceContext, @unchecked Sendable {
        // @unchecked: called on the clock's thread only (the test's), read after.
        var tick = 0
        private(set) var pulls: [Int] = []
        private(set) var pushes: [Int] = []
        func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
            samples.update(repeating: 0)
            pulls.append(tick)
        }
        func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) { pushes.append(tick) }
        func audioDevice(didReport event: AudioDeviceEvent) {}
    }

    /// Even slots are pulled at the mix, odd slots half a period (one 5 ms tick) after it, each
    /// every 10 ms; each gets a whole 20 ms frame (its codec's, 20 ms until its stream says),
    /// and slots 2 and 3 start one period later than 0 and 1: the legs' frames end on four
    /// different 5 ms ticks.
    func testOddSlotsAreServedHalfAPeriodAfterTheEvenOnes() throws {
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(5), name: "test-conf")
        let bridge = bridge(clock: clock, talk: Locked([]))
        let calls = (0..<4).map { _ in TimedCall() }
        for call in calls {
            let port = ConferencePort()
            try port.startRendering(context: call)
            try port.startCapturing(context: call)
            _ = try XCTUnwrap(try bridge.attach(port))
        }
        for tick in 0..<40 {
            for call in calls { call.tick = tick }
            clock.tick(at: MediaTime.milliseconds(Int64(5 * tick)))
        }
        XCTAssertEqual(bridge.periods, 20)
        for (slot, call) in calls.enumerated() {
            XCTAssertEqual(call.pulls, Array(stride(from: slot % 2, to: 40, by: 2)), "slot \(slot) pulls")
            XCTAssertEqual(call.pushes, Array(stride(from: slot + 2, to: 40, by: 4)), "slot \(slot) gets a frame every 20 ms")
        }
    }
}
