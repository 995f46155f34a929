import VoiceTestKit
import XCTest
import VoiceTestAudio

/// The test kit's alignment, which the audio assertions of the stream and interop tests rest on.
final class AudioComparisonTests: XCTestCase {
    private let signal = TestSignals.speechLike(seconds: 1)

    func testAlignFindsTheDelayOfADelayedCopy() {
        let delayed = [Int16](repeating: 0, count: 2_400) + signal
        let alignment = AudioComparison.align(reference: signal, output: delayed, maxLag: 4_800)
        XCTAssertEqual(alignment.lag, 2_400)
        XCTAssertGreaterThan(alignment.correlation, 0.99)
    }

    func testAlignToLoopFindsARecordingThatStartsInsideTheLoop() {
        // A peer looping `signal` had been sending 0.6 s before a 0.7 s recording began, which
        // runs across the loop's wrap (as in the interop tests: a 4 s loop, ~3 s recorded).
        let looped = Array([[Int16]](repeating: signal, count: 3).joined())
        let recording = Array(looped[28_800..<(28_800 + 33_600)])
        XCTAssertLessThan(AudioComparison.align(reference: signal, output: recording, maxLag: 12_000).correlation, 0.5,
                          "an alignment with the first period cannot see it")
        let alignment = AudioComparison.alignToLoop(signal, output: recording)
        XCTAssertEqual(alignment.lag, 28_800)
        XCTAssertGreaterThan(alignment.correlation, 0.99)
    }

    func testAlignToLoopOfUnrelatedAudioStaysLow() {
        let other = TestSignals.speechLike(seconds: 1, seed: 7)
        XCTAssertLessThan(AudioComparison.alignToLoop(signal, output: other).correlation, 0.3)
    }

    // MARK: WindowedAlignment, which the stream tests' audio assertions rest on

    private let speech = TestSignals.speechLike(seconds: 3)

    func testWindowedAlignmentPassesOverAStallThatShiftsTheTimeline() {
        // Played 80 ms late; a stall then drops 150 ms of the signal and plays 200 ms of silence.
        let played = [Int16](repeating: 0, count: 3_840) + speech[0..<60_000]
            + [Int16](repeating: 0, count: 9_600) + speech[67_200...]
        XCTAssertLessThan(AudioComparison.align(reference: speech, output: played, maxLag: 24_000).correlation, 0.8,
                          "one lag for the whole recording sees broken audio")
        let windowed = WindowedAlignment(played: speech, in: played)
        XCTAssertGreaterThan(windowed.correlation, 0.99, "\(windowed)")
        XCTAssertEqual(windowed.smallestLag(), 3_840)
    }

    func testWindowedAlignmentFindsALoopFromWhereverTheRecordingStarts() {
        // A peer looping 1 s of speech had been sending 0.6 s before the recording began; 100 ms
        // of it are lost in a stall, and the recording ends with the call.
        let looped = Array([[Int16]](repeating: signal, count: 4).joined())
        let recording = [Int16](repeating: 0, count: 2_400) + looped[28_800..<100_000] + looped[104_800..<150_000]
        XCTAssertLessThan(AudioComparison.alignToLoop(signal, output: recording).correlation, 0.8, "one lag sees broken audio")
        let windowed = WindowedAlignment(playedInALoop: signal, in: recording)
        XCTAssertGreaterThan(windowed.correlation, 0.99, "\(windowed)")
        let other = TestSignals.speechLike(seconds: 3, seed: 7)
        XCTAssertLessThan(WindowedAlignment(playedInALoop: signal, in: other).correlation, 0.6, "another signal")
    }

    /// Each window takes the best of some two thousand lags, so audio unrelated to the signal
    /// still finds some likeness (about 0.5 for two speech-like signals): well below the 0.7–0.9
    /// that the stream tests ask for.
    func testWindowedAlignmentOfOtherOrMissingAudioStaysLow() {
        let other = TestSignals.speechLike(seconds: 3, seed: 7)
        XCTAssertLessThan(WindowedAlignment(played: speech, in: other).correlation, 0.6, "another signal")
        XCTAssertEqual(WindowedAlignment(played: speech, in: [Int16](repeating: 0, count: 144_000)).correlation, 0, "silence")
        XCTAssertEqual(WindowedAlignment(playedInALoop: speech, in: [Int16](repeating: 0, count: 144_000)).correlation, 0, "silence, looped")
        XCTAssertEqual(WindowedAlignment(playedInALoop: speech, in: []).correlation, 0, "nothing recorded")
        // Most of the recording is not the signal: the part that is does not carry the median.
        let mostlyOther = Array(speech[0..<48_000]) + other[48_000...]
        XCTAssertLessThan(WindowedAlignment(played: speech, in: mostlyOther).correlation, 0.6, "mostly another signal")
        // The signal at a third of its rate (a resampling bug) matches nowhere.
        let slowed = speech.indices.map { speech[$0 / 3] }
        XCTAssertLessThan(WindowedAlignment(played: speech, in: slowed).correlation, 0.6, "a wrong rate")
    }
}
