import VoiceTestAudio
import XCTest

/// The spectral match the audio assertions rest on: it passes over what a working receiver does to
/// a waveform (a delay, a stall, pitch periods removed or repeated, codec noise) and fails what a
/// broken one plays (another signal, a wrong rate, silence).
final class SpectralSimilarityTests: XCTestCase {
    private let speech = TestSignals.speechLike(seconds: 3)
    private let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000), (3_100, 2_000)], seconds: 3)

    func testADelayedCopyMatchesFullyAndTellsItsLatency() {
        let delayed = [Int16](repeating: 0, count: 3_840) + speech
        let match = SpectralSimilarity(played: speech, in: delayed)
        XCTAssertGreaterThan(match.score, 0.99, "\(match)")
        XCTAssertEqual(match.percent, 100)
        XCTAssertEqual(match.latencyMilliseconds(), 80)
    }

    func testAStallThatShiftsTheTimelineIsPassedOver() {
        let played = [Int16](repeating: 0, count: 3_840) + speech[0..<60_000] + [Int16](repeating: 0, count: 9_600) + speech[67_200...]
        XCTAssertGreaterThan(SpectralSimilarity(played: speech, in: played).score, 0.95)
    }

    /// What time-scale modification does: one pitch period removed (or repeated) with a
    /// cross-fade. Waveform correlation punishes it; the spectrum keeps it.
    func testPitchPeriodsRemovedOrRepeatedStillMatch() {
        for (signal, name) in [(speech, "speech"), (tones, "tones")] {
            let faster = Self.timeScaled(signal, every: 9_600, remove: true)
            let slower = Self.timeScaled(signal, every: 1_920, remove: false)
            let fasterMatch = SpectralSimilarity(played: signal, in: faster)
            XCTAssertGreaterThan(fasterMatch.score, 0.85, "\(name), periods removed: \(fasterMatch)")
            XCTAssertGreaterThan(SpectralSimilarity(played: signal, in: slower).score, 0.85, "\(name), periods repeated")
        }
        let slower = Self.timeScaled(speech, every: 1_920, remove: false)
        XCTAssertLessThan(
            WindowedAlignment(played: speech, in: slower).correlation, SpectralSimilarity(played: speech, in: slower).score - 0.1,
            "the waveform measure this replaces punishes the same audio")
    }

    func testNoiseTwentyDecibelsDownStillMatches() {
        var rng = SplitMix64(seed: 5)
        let noisy = speech.map { Int16(clamping: Int($0) + Int(rng.next() % 2_000) - 1_000) }
        XCTAssertGreaterThan(SpectralSimilarity(played: speech, in: noisy).score, 0.8)
    }

    func testALoopIsFoundFromWhereverTheRecordingStarts() {
        let signal = TestSignals.speechLike(seconds: 1)
        let looped = Array([[Int16]](repeating: signal, count: 4).joined())
        let recording = [Int16](repeating: 0, count: 2_400) + looped[28_800..<100_000] + looped[104_800..<150_000]
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: signal, in: recording).score, 0.95)
    }

    func testOtherAudioOrNoneScoresLow() {
        let other = TestSignals.speechLike(seconds: 3, seed: 7)
        XCTAssertLessThan(SpectralSimilarity(played: speech, in: other).score, 0.72, "another voice: same formants, another pitch")
        XCTAssertLessThan(SpectralSimilarity(playedInALoop: speech, in: other).score, 0.72, "another voice, looped")
        let otherTones = TestSignals.multiTone([(660, 5_000), (2_100, 3_000)], seconds: 3)
        XCTAssertLessThan(SpectralSimilarity(played: tones, in: otherTones).score, 0.2, "other tones")
        var rng = SplitMix64(seed: 9)
        let noise = (0..<144_000).map { _ in Int16(clamping: Int(rng.next() % 16_000) - 8_000) }
        XCTAssertLessThan(SpectralSimilarity(played: speech, in: noise).score, 0.2, "noise")
        let slowed = speech.indices.map { speech[$0 / 3] }
        XCTAssertLessThan(SpectralSimilarity(played: speech, in: slowed).score, 0.2, "a wrong rate")
        XCTAssertEqual(SpectralSimilarity(played: speech, in: [Int16](repeating: 0, count: 144_000)).score, 0, "silence")
        XCTAssertEqual(SpectralSimilarity(playedInALoop: speech, in: []).score, 0, "nothing recorded")
        XCTAssertNil(SpectralSimilarity(played: speech, in: []).latencyMilliseconds())
        let mostlyOther = Array(speech[0..<48_000]) + other[48_000...]
        XCTAssertLessThan(SpectralSimilarity(played: speech, in: mostlyOther).score, 0.75, "mostly another voice")
    }

    func testNarrowbandRecordingsAreComparedAtTheirOwnRate() {
        let at16k = TestSignals.speechLike(seconds: 2, sampleRate: 16_000)
        let delayed = [Int16](repeating: 0, count: 800) + at16k
        let match = SpectralSimilarity(played: at16k, in: delayed, sampleRate: 16_000)
        XCTAssertGreaterThan(match.score, 0.99)
        XCTAssertEqual(match.latencyMilliseconds(), 50)
    }

    /// Removes (or repeats) one pitch period every `every` samples, cross-faded over the period,
    /// as a time-scale modifier does.
    static func timeScaled(_ x: [Int16], every: Int, remove: Bool) -> [Int16] {
        var out: [Int16] = []
        var i = 0
        while i + every + 1_440 < x.count {
            out += x[i..<(i + every)]
            i += every
            let p = period(x, at: i)
            if remove {
                for k in 0..<p {
                    let w = Double(k) / Double(p)
                    out.append(Int16(clamping: Int(Double(x[i + k]) * (1 - w) + Double(x[i + p + k]) * w)))
                }
                i += 2 * p
            } else {
                out += x[i..<(i + p)]
                for k in 0..<p {
                    let w = Double(k) / Double(p)
                    out.append(Int16(clamping: Int(Double(x[i + k + p]) * (1 - w) + Double(x[i + k]) * w)))
                }
                i += p
            }
        }
        return out
    }

    /// The lag (2.5–15 ms) at which `x` from `i` best matches itself.
    private static func period(_ x: [Int16], at i: Int) -> Int {
        var best = 120, bestValue = -2.0
        for p in 120...720 where i + 2 * p < x.count {
            var xy = 0.0, xx = 0.0, yy = 0.0
            for k in 0..<p {
                let a = Double(x[i + k]), b = Double(x[i + p + k])
                xy += a * b
                xx += a * a
                yy += b * b
            }
            let c = xx > 0 && yy > 0 ? xy / (xx * yy).squareRoot() : 0
            if c > bestValue {
                bestValue = c
                best = p
            }
        }
        return best
    }
}
