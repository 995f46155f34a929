import CMallocCounter
import Foundation
import XCTest
@testable import VoiceRTP

/// ``TimeStretch``: one pitch period out of or into a frame, seamlessly, and only where it fits.
final class TimeStretchTests: XCTestCase {
    /// A voiced-like tone: six harmonics of `f0` at falling amplitude, starting at sample `from`.
    static func voiced(f0: Double, count: Int, from: Int = 0, amplitude: Double = 8_000) -> [Int16] {
        (0..<count).map { i in
            let t = Double(i + from) / 48_000
            var v = 0.0
            for h in 1...6 { v += sin(2 * .pi * f0 * Double(h) * t) / Double(h) }
            return Int16(v * amplitude)
        }
    }

    static func noise(count: Int, amplitude: Int16, seed: UInt64) -> [Int16] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int16(truncatingIfNeeded: Int64(state >> 33) % Int64(2 * Int(amplitude) + 1) - Int64(amplitude))
        }
    }

    /// Runs `body` on `samples` placed in a buffer of `capacity` and returns the first `count` it reports.
    static func apply(_ samples: [Int16], capacity: Int = 48 * 120, _ body: (UnsafeMutableBufferPointer<Int16>, Int) -> Int) -> [Int16] {
        var buffer = samples + [Int16](repeating: 0, count: max(0, capacity - samples.count))
        let n = buffer.withUnsafeMutableBufferPointer { body($0, samples.count) }
        return Array(buffer[0..<n])
    }

    func testAcceleratingAPeriodicFrameRemovesExactlyOnePeriodAndLeavesTheSignalIntact() {
        // 150 Hz: a period of 320 samples. Cutting a whole period out of a periodic signal
        // leaves the same signal, shorter, so every sample must match the original.
        let frame = Self.voiced(f0: 150, count: 960)
        var ts = TimeStretch()
        let out = Self.apply(frame) { ts.accelerate($0, count: $1) }
        XCTAssertEqual(out.count, 960 - 320)
        for k in out.indices where abs(Int(out[k]) - Int(frame[k])) > 2 {
            return XCTFail("sample \(k): \(out[k]) where the tone has \(frame[k])")
        }
    }

    func testStretchingAPeriodicFrameAddsExactlyOnePeriodOfTheSameTone() {
        let frame = Self.voiced(f0: 150, count: 960)
        let longer = Self.voiced(f0: 150, count: 960 + 320)
        var ts = TimeStretch()
        let out = Self.apply(frame) { ts.stretch($0, count: $1) }
        XCTAssertEqual(out.count, 960 + 320)
        for k in out.indices where abs(Int(out[k]) - Int(longer[k])) > 2 {
            return XCTFail("sample \(k): \(out[k]) where the tone has \(longer[k])")
        }
    }

    func testAPitchBelow100HzIsFoundInALongerFrame() {
        // 80 Hz (600 samples) does not fit twice in 20 ms, but does in 60 ms.
        var ts = TimeStretch()
        let long = Self.voiced(f0: 80, count: 2_880)
        XCTAssertEqual(Self.apply(long) { ts.accelerate($0, count: $1) }.count, 2_880 - 600)
        XCTAssertEqual(Self.apply(long) { ts.stretch($0, count: $1) }.count, 2_880 + 600)
    }

    func testLoudNoiseIsLeftAloneAndQuietNoiseChangesByTheLongestPeriod() {
        var ts = TimeStretch()
        let loud = Self.noise(count: 960, amplitude: 8_000, seed: 1)
        XCTAssertEqual(Self.apply(loud) { ts.accelerate($0, count: $1) }, loud, "noise has no period: unchanged")
        XCTAssertEqual(Self.apply(loud) { ts.stretch($0, count: $1) }, loud)
        let quiet = Self.noise(count: 960, amplitude: 60, seed: 2)
        XCTAssertEqual(Self.apply(quiet) { ts.accelerate($0, count: $1) }.count, 480, "a pause gives up half a 20 ms frame at once")
        XCTAssertEqual(Self.apply(quiet) { ts.stretch($0, count: $1) }.count, 1_440)
        let silence = [Int16](repeating: 0, count: 960)
        XCTAssertEqual(Self.apply(silence) { ts.accelerate($0, count: $1) }, [Int16](repeating: 0, count: 480))
    }

    func testAQuietFrameChangesByWhatIsAskedWithinThePeriodsTried() {
        var ts = TimeStretch()
        let quiet = Self.noise(count: 960, amplitude: 60, seed: 3)
        XCTAssertEqual(Self.apply(quiet) { ts.accelerate($0, count: $1, voiced: false, quietChange: 300) }.count, 660)
        XCTAssertEqual(Self.apply(quiet) { ts.stretch($0, count: $1, voiced: false, quietChange: 300) }.count, 1_260)
        XCTAssertEqual(Self.apply(quiet) { ts.accelerate($0, count: $1, quietChange: 10) }.count, 960 - 120, "at least the shortest")
        XCTAssertEqual(Self.apply(quiet) { ts.stretch($0, count: $1, quietChange: 5_000) }.count, 960 + 480, "at most half the frame")
        // A voiced frame ignores the request: only a whole period keeps it seamless.
        let tone = Self.voiced(f0: 150, count: 960)
        XCTAssertEqual(Self.apply(tone) { ts.accelerate($0, count: $1, quietChange: 200) }.count, 640)
    }

    func testWhenNotUrgentOnlyQuietFramesChange() {
        var ts = TimeStretch()
        let tone = Self.voiced(f0: 150, count: 960)
        XCTAssertEqual(Self.apply(tone) { ts.accelerate($0, count: $1, voiced: false) }, tone)
        XCTAssertEqual(Self.apply(tone) { ts.stretch($0, count: $1, voiced: false) }, tone)
        let quiet = Self.voiced(f0: 150, count: 960, amplitude: 40)
        XCTAssertLessThan(Self.apply(quiet) { ts.accelerate($0, count: $1, voiced: false) }.count, 960)
    }

    func testStretchWithoutRoomAndFramesTooShortAreLeftAlone() {
        var ts = TimeStretch()
        let tone = Self.voiced(f0: 150, count: 960)
        XCTAssertEqual(Self.apply(tone, capacity: 1_000) { ts.stretch($0, count: $1) }, tone, "320 more do not fit in 1,000")
        let short = Self.voiced(f0: 300, count: 200)
        XCTAssertEqual(Self.apply(short) { ts.accelerate($0, count: $1) }, short, "two shortest periods do not fit")
        XCTAssertEqual(Self.apply([]) { ts.accelerate($0, count: $1) }, [])
    }

    func testThePeriodsAreCrossFadedNotCutWhereTheyDiffer() {
        // A swelling 150 Hz sine: 60 % louder at the end of the frame than at the start, so
        // neighbouring periods correlate fully but differ sample by sample. A cut would jump by
        // the difference (up to a fifth of the amplitude, ten times the sine's largest step);
        // the cross-fade moves from one period to the other smoothly.
        let swelling: [Int16] = (0..<960).map { (i: Int) -> Int16 in
            let envelope: Double = 10_000 * (1 + 0.6 * Double(i) / 960)
            let phase: Double = 2 * Double.pi * 150 * Double(i + 53) / 48_000
            return Int16(envelope * sin(phase))
        }
        func largestStep(_ x: [Int16]) -> Int { zip(x, x.dropFirst()).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
        var ts = TimeStretch()
        let shorter = Self.apply(swelling) { ts.accelerate($0, count: $1) }
        let longer = Self.apply(swelling) { ts.stretch($0, count: $1) }
        XCTAssertEqual(shorter.count, 640)
        XCTAssertEqual(longer.count, 1_280)
        XCTAssertLessThan(Double(largestStep(shorter)), 1.1 * Double(largestStep(swelling)))
        XCTAssertLessThan(Double(largestStep(longer)), 1.1 * Double(largestStep(swelling)))
    }

    func testAGlidingVoiceStaysFreeOfClicksAcrossEveryJoin() {
        // A voice gliding 120 → 200 Hz over one second; every other 20 ms frame is accelerated
        // or stretched in turn, the frames are joined, and no step between neighbouring samples
        // may exceed the largest step in the original by more than a little.
        var phase = 0.0
        let input: [Int16] = (0..<48_000).map { i in
            let f0 = 120 + 80 * Double(i) / 48_000
            phase += 2 * .pi * f0 / 48_000
            var v = 0.0
            for h in 1...5 { v += sin(Double(h) * phase) / Double(h) }
            return Int16(v * 9_000)
        }
        var ts = TimeStretch()
        var output: [Int16] = []
        var changed = 0
        for f in 0..<50 {
            let frame = Array(input[(f * 960)..<((f + 1) * 960)])
            let out: [Int16] =
                switch f % 4 {
                case 1: Self.apply(frame) { ts.accelerate($0, count: $1) }
                case 3: Self.apply(frame) { ts.stretch($0, count: $1) }
                default: frame
                }
            if out.count != 960 { changed += 1 }
            output += out
        }
        func largestStep(_ x: [Int16]) -> Int { zip(x, x.dropFirst()).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
        XCTAssertGreaterThan(changed, 20, "a clean voice is periodic enough to change almost every time")
        XCTAssertLessThan(Double(largestStep(output)), 1.25 * Double(largestStep(input)))
    }

    func testChangesAllocateNothing() throws {
        try XCTSkipUnless(voice_malloc_counter_is_counting() == 1, "a sanitizer build counts no allocations")
        var ts = TimeStretch()
        let tone = Self.voiced(f0: 150, count: 960)
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 48 * 120)
        defer { buffer.deallocate() }
        voice_malloc_counter_track_current_thread(1)
        let before = voice_malloc_counter_tracked_count()
        var total = 0
        for round in 0..<20 {
            _ = buffer.initialize(from: tone)
            total += round % 2 == 0 ? ts.accelerate(buffer, count: 960) : ts.stretch(buffer, count: 960)
        }
        let after = voice_malloc_counter_tracked_count()
        voice_malloc_counter_track_current_thread(0)
        XCTAssertEqual(total, 20 * 960, "ten periods out, ten in")
        XCTAssertEqual(after - before, 0)
    }
}
