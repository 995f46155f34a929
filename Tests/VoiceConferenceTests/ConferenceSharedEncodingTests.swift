import VoiceMedia
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceTestAudio
import XCTest

@testable import VoiceConference

/// The bridge's shared encodes, on a manual clock with real Opus: listeners get the room's mix
/// encoded once per encoding and frame phase, talkers their own mix as samples; everyone hears
/// every other talker and nobody hears itself.
final class ConferenceSharedEncodingTests: XCTestCase {
    /// A call's stream as its port sees it: plays a tone (or silence), takes frames as samples
    /// or as Opus payloads, which it decodes; records everything it hears.
    private final class Call: AudioDeviceContext, SharedEncodingSink, @unchecked Sendable {
        // @unchecked: called on the clock's thread only (the test's), read after.
        var frequency: Double?
        let key: SharedEncodingKey?
        private var phase = 0
        private let decoder: any MediaDecoder
        private let decoded = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 2_880)
        private(set) var heard: [Int16] = []
        /// How each frame came: true encoded, false samples.
        private(set) var frames: [Bool] = []

        init(frequency: Double?, key: SharedEncodingKey?) throws {
            self.frequency = frequency
            self.key = key
            decoder = try MediaCodec.opus(.voice).makeDecoder()
            heard.reserveCapacity(48_000 * 4)
        }
        deinit { decoded.deallocate() }

        func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
            for i in samples.indices {
                samples[i] = frequency.map { Int16((6_000 * sin(2 * .pi * $0 * Double(phase) / 48_000)).rounded()) } ?? 0
                phase += 1
            }
        }
        func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
            heard.append(contentsOf: samples)
            frames.append(false)
        }
        func audioDevice(didReport event: AudioDeviceEvent) {}
        func sharedEncoding(ifNewerThan version: Int) -> (key: SharedEncodingKey?, version: Int)? {
            version == 1 ? nil : (key, 1)
        }
        func deliverEncodedFrame(_ payload: UnsafeRawBufferPointer, samples: Int, peak: Int, level: UInt8) -> Bool {
            guard let n = try? decoder.decode(payload, into: decoded), n == samples else { return false }
            heard.append(contentsOf: decoded[0..<n])
            frames.append(true)
            return true
        }
        /// The amplitude of `tone` in what it heard over the last `seconds`.
        func level(of tone: Double, lastSeconds seconds: Double = 0.5) -> Double {
            ToneAmplitude.of(tone, in: heard.suffix(Int(seconds * 48_000)))
        }
        var encodedFrames: Int { frames.filter { $0 }.count }
    }

    private let key = SharedEncodingKey(codec: .opus(.voice), ptime: 20, fec: false, lossHint: 0, bitrate: 64_000)

    private struct Room {
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(5), name: "test-conf")
        let bridge: ConferenceBridge
        var time = MediaTime.zero
        init(capacity: Int, sharesEncoding: Bool = true) {
            bridge = ConferenceBridge(capacity: capacity, clock: clock, measuresLateness: false, sharesEncoding: sharesEncoding) { _, _ in }
        }
        mutating func run(seconds: Double) {
            for _ in 0..<Int(seconds * 200) {
                clock.tick(at: time)
                time = time + .milliseconds(5)
                // Encoders for new groups are made on a queue of their own: let it answer at once.
                if time.nanoseconds % 100_000_000 == 0 { ConferenceMixLoop.encoderQueue.sync {} }
            }
        }
    }

    private func seat(_ calls: [Call], in room: Room) throws -> [Int] {
        try calls.map { call in
            let port = ConferencePort()
            try port.startRendering(context: call)
            try port.startCapturing(context: call)
            return try XCTUnwrap(try room.bridge.attach(port))
        }
    }

    func testListenersShareOneEncodeAndHearEveryTalkerWhileTalkersHearThemselvesNever() throws {
        let tones = [500.0, 700, 1_100]
        let talkers = try tones.map { try Call(frequency: $0, key: key) }
        let listeners = try (0..<5).map { _ in try Call(frequency: nil, key: key) }
        var room = Room(capacity: 8)
        _ = try seat(talkers + listeners, in: room)
        room.run(seconds: 2)

        for listener in listeners {
            XCTAssertGreaterThan(listener.encodedFrames, 80, "a listener takes the shared encode after 200 ms quiet")
            XCTAssertTrue(listener.frames.suffix(50).allSatisfy { $0 }, "and keeps it")
            for tone in tones {
                XCTAssertEqual(listener.level(of: tone), 6_000, accuracy: 600, "a listener hears \(tone) Hz through Opus")
            }
        }
        for (talker, tone) in zip(talkers, tones) {
            XCTAssertEqual(talker.encodedFrames, 0, "a talker gets its own mix")
            XCTAssertLessThan(talker.level(of: tone, lastSeconds: 1.9), 1, "\(tone) Hz never hears itself")
            for other in tones where other != tone {
                XCTAssertEqual(talker.level(of: other), 6_000, accuracy: 60)
            }
        }
        // Two frame phases (slot / 2 modulo 2), one encoding: at most two encodes per 20 ms for
        // the five listeners, against five per-leg encodes.
        let figures = room.bridge.figures
        XCTAssertLessThanOrEqual(figures.groupEncodes.load(ordering: .relaxed), 2 * 100)
        XCTAssertEqual(
            figures.sharedFrames.load(ordering: .relaxed), listeners.map(\.encodedFrames).reduce(0, +), "the figures count what the calls took")
        room.bridge.stop()
    }

    /// A listener that starts talking gets its own mix from its first frame holding its voice;
    /// one that falls silent (muted) moves to the shared encode after the hangover.
    func testAParticipantMovesBetweenItsOwnMixAndTheSharedEncode() throws {
        let talker = try Call(frequency: 500, key: key)
        let quiet = try Call(frequency: nil, key: key)
        let others = try (0..<2).map { _ in try Call(frequency: nil, key: key) }
        var room = Room(capacity: 4)
        let slots = try seat([talker, quiet] + others, in: room)
        room.run(seconds: 1)
        XCTAssertTrue(quiet.frames.suffix(10).allSatisfy { $0 }, "quiet: on the shared encode")

        // It starts talking at 900 Hz: from then on it never hears 900 Hz.
        let start = quiet.heard.count
        quiet.frequency = 900
        room.run(seconds: 1)
        XCTAssertLessThan(ToneAmplitude.of(900, in: quiet.heard[start...]), 1, "its own voice is never in what it hears")
        XCTAssertEqual(ToneAmplitude.of(500, in: quiet.heard.suffix(24_000)), 6_000, accuracy: 60, "it hears the talker, as samples")
        XCTAssertTrue(quiet.frames.suffix(40).allSatisfy { !$0 })
        XCTAssertEqual(others[0].level(of: 900), 6_000, accuracy: 600, "the listeners hear it")

        // The talker is muted: after 200 ms it hears the room's shared encode (without itself).
        room.bridge.setMuted(slots[0], true)
        room.run(seconds: 1)
        XCTAssertTrue(talker.frames.suffix(30).allSatisfy { $0 }, "muted: on the shared encode")
        XCTAssertEqual(talker.level(of: 900), 6_000, accuracy: 600)
        XCTAssertLessThan(talker.level(of: 500), 60, "it does not hear itself there either")
        room.bridge.stop()
    }

    /// Without shared encodes (the per-leg baseline) everyone gets samples.
    func testThePerLegBaselineEncodesNothingShared() throws {
        let talker = try Call(frequency: 500, key: key)
        let listener = try Call(frequency: nil, key: key)
        var room = Room(capacity: 2, sharesEncoding: false)
        _ = try seat([talker, listener], in: room)
        room.run(seconds: 1)
        XCTAssertEqual(listener.encodedFrames, 0)
        XCTAssertEqual(room.bridge.figures.groupEncodes.load(ordering: .relaxed), 0)
        XCTAssertEqual(listener.level(of: 500), 6_000, accuracy: 60)
        room.bridge.stop()
    }
}

import CMallocCounter

extension ConferenceSharedEncodingTests {
    /// Once the groups exist, a tick with shared encodes (gathering, encoding once, handing the
    /// payload over) allocates nothing.
    func testSharedEncodingAllocatesNothingInSteadyState() throws {
        try XCTSkipUnless(voice_malloc_counter_is_counting() == 1, "a sanitizer build counts no allocations")
        let key = SharedEncodingKey(codec: .opus(.voice), ptime: 20, fec: false, lossHint: 0, bitrate: 64_000)
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(5), name: "test-conf")
        let bridge = ConferenceBridge(capacity: 6, clock: clock, measuresLateness: false) { _, _ in }
        let sinks = (0..<6).map { CountingSink(key: key, talking: $0 == 0) }
        for sink in sinks {
            let port = ConferencePort()
            try port.startRendering(context: sink)
            try port.startCapturing(context: sink)
            _ = try bridge.attach(port)
        }
        var time = MediaTime.zero
        for _ in 0..<200 {
            clock.tick(at: time)
            time = time + .milliseconds(5)
            ConferenceMixLoop.encoderQueue.sync {}
        }
        voice_malloc_counter_track_current_thread(1)
        let before = voice_malloc_counter_tracked_count()
        let encodedBefore = sinks[1].encoded
        for _ in 0..<400 {
            bridge.clockDidTick(at: time)
            time = time + .milliseconds(5)
        }
        let after = voice_malloc_counter_tracked_count()
        voice_malloc_counter_track_current_thread(0)
        XCTAssertEqual(sinks[1].encoded - encodedBefore, 100, "a listener took every frame as the shared encode")
        XCTAssertEqual(after - before, 0, "allocations in 200 mixing periods with shared encodes")
        bridge.stop()
    }

    /// Talks (a tone) or not, and counts the frames it takes.
    private final class CountingSink: AudioDeviceContext, SharedEncodingSink, @unchecked Sendable {
        // @unchecked: the clock's thread only (the test's).
        let key: SharedEncodingKey
        let talking: Bool
        var encoded = 0
        var phase = 0
        init(key: SharedEncodingKey, talking: Bool) {
            self.key = key
            self.talking = talking
        }
        func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
            for i in samples.indices {
                samples[i] = talking ? Int16((6_000 * sin(2 * .pi * 500 * Double(phase) / 48_000)).rounded()) : 0
                phase += 1
            }
        }
        func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {}
        func audioDevice(didReport event: AudioDeviceEvent) {}
        func sharedEncoding(ifNewerThan version: Int) -> (key: SharedEncodingKey?, version: Int)? { version == 1 ? nil : (key, 1) }
        func deliverEncodedFrame(_ payload: UnsafeRawBufferPointer, samples: Int, peak: Int, level: UInt8) -> Bool {
            encoded += 1
            return true
        }
    }
}
