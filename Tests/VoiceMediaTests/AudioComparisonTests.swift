import VoiceTestKit
import XCTest

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
}
