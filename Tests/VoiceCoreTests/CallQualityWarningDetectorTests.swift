import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallQualityWarningDetectorTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Feeds `samples` one second apart and returns the change each produced.
    private func feed(
        _ detector: inout CallQualityWarningDetector, _ samples: [CallQualitySample], callSid: String? = "CA1"
    ) -> [CallQualityWarningChange?] {
        samples.enumerated().map { index, sample in
            detector.add(sample, at: start.addingTimeInterval(Double(index)), callSid: callSid)
        }
    }

    private var levelCounter = 0
    /// A speech-like input level that never stays constant, so tests of the other warnings do
    /// not raise the input-level one.
    private func nextLevel() -> Int {
        levelCounter += 1
        return levelCounter % 2 == 0 ? 0 : 20_000
    }
    private func rtt(_ values: [Double?]) -> [CallQualitySample] {
        values.map { CallQualitySample(rttMs: $0, inputLevel: nextLevel()) }
    }
    private func jitter(_ values: [Double]) -> [CallQualitySample] {
        values.map { CallQualitySample(jitterMs: $0, inputLevel: nextLevel()) }
    }
    private func mos(_ values: [Double?]) -> [CallQualitySample] {
        values.map { CallQualitySample(mos: $0, inputLevel: nextLevel()) }
    }
    private func loss(_ values: [Double]) -> [CallQualitySample] {
        values.map { CallQualitySample(packetsLostFraction: $0, inputLevel: nextLevel()) }
    }
    private func level(_ values: [Int], muted: Bool = false) -> [CallQualitySample] {
        values.map { CallQualitySample(inputLevel: $0, isMuted: muted) }
    }
    /// Alternating `a`, `b`: ten of them have a population standard deviation of |a − b| / 2.
    private func alternating(_ a: Int, _ b: Int, count: Int = 10) -> [Int] {
        (0..<count).map { $0 % 2 == 0 ? a : b }
    }
    /// Index of the only non-nil change, or nil when none; fails on more than one.
    private func changeIndex(_ changes: [CallQualityWarningChange?], file: StaticString = #filePath, line: UInt = #line) -> Int? {
        let indices = changes.indices.filter { changes[$0] != nil }
        XCTAssertLessThanOrEqual(indices.count, 1, "more than one change: \(indices)", file: file, line: line)
        return indices.first
    }

    // MARK: Thresholds

    func testThresholdConstantsMatchTheReference() {
        XCTAssertEqual(CallQualityWarningDetector.rttThresholdMs, 400)
        XCTAssertEqual(CallQualityWarningDetector.jitterThresholdMs, 30)
        XCTAssertEqual(CallQualityWarningDetector.mosThreshold, 3.5)
        XCTAssertEqual(CallQualityWarningDetector.packetsLostFractionRaiseThreshold, 0.03)
        XCTAssertEqual(CallQualityWarningDetector.packetsLostFractionClearThreshold, 0.01)
        XCTAssertEqual(CallQualityWarningDetector.inputLevelRaiseDeviation, 327.67, accuracy: 1e-9)
        XCTAssertEqual(CallQualityWarningDetector.inputLevelClearDeviation, 983.01, accuracy: 1e-9)
        XCTAssertEqual(CallQualityWarningDetector.countWindowSize, 5)
        XCTAssertEqual(CallQualityWarningDetector.countRaiseThreshold, 3)
        XCTAssertEqual(CallQualityWarningDetector.lossWindowSize, 7)
        XCTAssertEqual(CallQualityWarningDetector.inputLevelWindowSize, 10)
    }

    func testWarningNamesAreTheInsightsNames() {
        XCTAssertEqual(
            CallQualityWarning.allCases.map(\.insightsName),
            ["high-rtt", "high-jitter", "high-packets-lost-fraction", "low-mos", "constant-audio-input-level"])
    }

    // MARK: RTT

    func testRttThreeOfFiveAbove400Raises() {
        var d = CallQualityWarningDetector()
        let changes = feed(&d, rtt([500, 100, 500, 100, 500]))
        XCTAssertEqual(changeIndex(changes), 4)
        let change = changes[4]
        XCTAssertEqual(change?.previous, [])
        XCTAssertEqual(change?.current, [.highRtt])
        XCTAssertEqual(change?.raised, [.highRtt])
        XCTAssertEqual(change?.insightsEvents.map(\.qualifiedName), ["network-quality-warning-raised:high-rtt"])
        XCTAssertEqual(d.warnings, [.highRtt])
    }

    func testRttTwoOfFiveAboveDoesNotRaise() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, rtt([401, 100, 100, 401, 100, 100, 100]))))
        XCTAssertEqual(d.warnings, [])
    }

    func testRttOldSamplesLeaveTheWindow() {
        var d = CallQualityWarningDetector()
        // The two early highs leave the five-sample window before the third high arrives.
        XCTAssertNil(changeIndex(feed(&d, rtt([500, 500, 100, 100, 100, 100, 500]))))
    }

    func testRttRaisesOnThirdSampleWithoutAFullWindow() {
        var d = CallQualityWarningDetector()
        XCTAssertEqual(changeIndex(feed(&d, rtt([401, 401, 401]))), 2)
    }

    func testRttExactly400IsNotHigh() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, rtt([400, 400, 400, 400, 400, 401, 401]))))
        XCTAssertEqual(changeIndex(feed(&d, rtt([400.001]))), 0)
    }

    func testRttClearsWhenLastFiveAreBelow() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, rtt([500, 500, 500]))
        let changes = feed(&d, rtt([399, 399, 399, 399, 399]))
        XCTAssertEqual(changeIndex(changes), 4)
        XCTAssertEqual(changes[4]?.previous, [.highRtt])
        XCTAssertEqual(changes[4]?.current, [])
        XCTAssertEqual(changes[4]?.cleared, [.highRtt])
        XCTAssertEqual(changes[4]?.insightsEvents.map(\.qualifiedName), ["network-quality-warning-cleared:high-rtt"])
    }

    func testRttExactly400DoesNotClear() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, rtt([500, 500, 500]))
        XCTAssertNil(changeIndex(feed(&d, rtt([399, 399, 399, 399, 400, 399, 399, 399, 399]))))
        XCTAssertEqual(d.warnings, [.highRtt])
        XCTAssertEqual(changeIndex(feed(&d, rtt([399]))), 0)
    }

    func testRttOneHighSampleAmongLowOnesKeepsTheWarning() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, rtt([500, 500, 500]))
        XCTAssertNil(changeIndex(feed(&d, rtt([100, 100, 100, 100, 500, 100, 100, 100, 100]))))
        XCTAssertEqual(changeIndex(feed(&d, rtt([100]))), 0)
    }

    func testMissingRttNeitherRaisesNorClearsNorAges() {
        var d = CallQualityWarningDetector()
        XCTAssertEqual(changeIndex(feed(&d, rtt([500, nil, nil, nil, 500, nil, nil, 500]))), 7)
        XCTAssertNil(changeIndex(feed(&d, rtt(Array(repeating: nil, count: 20)))))
        XCTAssertEqual(d.warnings, [.highRtt])
        XCTAssertNil(changeIndex(feed(&d, rtt([.nan, .infinity, 100, 100, 100, 100]))))
        XCTAssertEqual(changeIndex(feed(&d, rtt([100]))), 0)
    }

    // MARK: Jitter

    func testJitterThreeOfFiveAbove30Raises() {
        var d = CallQualityWarningDetector()
        let changes = feed(&d, jitter([31, 10, 30.5, 10, 45]))
        XCTAssertEqual(changeIndex(changes), 4)
        XCTAssertEqual(changes[4]?.insightsEvents.map(\.qualifiedName), ["network-quality-warning-raised:high-jitter"])
    }

    func testJitterExactly30IsNotHigh() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, jitter([30, 30, 30, 30, 30, 31, 31, 30]))))
        XCTAssertEqual(changeIndex(feed(&d, jitter([30.01]))), 0)
    }

    func testJitterClearsWhenLastFiveAreBelowAndNotAt30() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, jitter([40, 40, 40]))
        XCTAssertNil(changeIndex(feed(&d, jitter([29.9, 29.9, 30, 29.9, 29.9, 29.9, 29.9]))))
        let changes = feed(&d, jitter([29.9]))
        XCTAssertEqual(changeIndex(changes), 0)
        XCTAssertEqual(changes[0]?.insightsEvents.map(\.qualifiedName), ["network-quality-warning-cleared:high-jitter"])
    }

    // MARK: MOS

    func testMosThreeOfFiveBelow3Point5Raises() {
        var d = CallQualityWarningDetector()
        let changes = feed(&d, mos([3.49, 4.2, 3.0, 4.2, 2.5]))
        XCTAssertEqual(changeIndex(changes), 4)
        XCTAssertEqual(changes[4]?.insightsEvents.map(\.qualifiedName), ["network-quality-warning-raised:low-mos"])
    }

    func testMosExactly3Point5IsNotLow() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, mos([3.5, 3.5, 3.5, 3.49, 3.49, 3.5, 3.5, 3.5, 3.5, 3.5]))))
        XCTAssertEqual(changeIndex(feed(&d, mos([3.4, 3.4, 3.4]))), 2)
    }

    func testMosClearsOnlyWhenLastFiveAreAbove() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, mos([3, 3, 3]))
        XCTAssertNil(changeIndex(feed(&d, mos([3.6, 3.6, 3.6, 3.6, 3.5, 3.6, 3.6, 3.6, 3.6]))))
        XCTAssertEqual(changeIndex(feed(&d, mos([3.51]))), 0)
        XCTAssertEqual(d.warnings, [])
    }

    func testMissingMosIsIgnored() {
        var d = CallQualityWarningDetector()
        XCTAssertEqual(changeIndex(feed(&d, mos([3, nil, 3, nil, nil, nil, 3]))), 6)
        XCTAssertNil(changeIndex(feed(&d, mos(Array(repeating: nil, count: 10)))))
        XCTAssertEqual(d.warnings, [.lowMos])
    }

    // MARK: Packet loss

    func testLossNeedsSevenSamples() {
        var d = CallQualityWarningDetector()
        XCTAssertEqual(changeIndex(feed(&d, loss([1, 1, 1, 1, 1, 1, 0]))), 6)
    }

    func testLossMeanAbove3PercentRaises() {
        var d = CallQualityWarningDetector()
        let changes = feed(&d, loss(Array(repeating: 0.0301, count: 7)))
        XCTAssertEqual(changeIndex(changes), 6)
        let event = changes[6]?.insightsEvents.first
        XCTAssertEqual(event?.qualifiedName, "network-quality-warning-raised:high-packets-lost-fraction")
        XCTAssertEqual(event?.payload["threshold"], .double(0.03))
        XCTAssertEqual(event?.payload["mean"]?.doubleValue ?? 0, 0.0301, accuracy: 1e-12)
    }

    func testLossMeanExactly3PercentDoesNotRaise() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, loss(Array(repeating: 0.03, count: 14)))))
        XCTAssertEqual(d.warnings, [])
        var e = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&e, loss([0.21, 0, 0, 0, 0, 0, 0]))))
    }

    func testLossSpikeAveragedOverSevenSamples() {
        var d = CallQualityWarningDetector()
        // 20 % in one second is a mean of 2.9 % over seven: no warning; a second spike raises.
        XCTAssertNil(changeIndex(feed(&d, loss([0, 0, 0, 0, 0, 0, 0.2]))))
        XCTAssertEqual(changeIndex(feed(&d, loss([0.02]))), 0)
    }

    func testLossClearsAtMeanOf1PercentOrLess() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, loss(Array(repeating: 0.05, count: 7)))
        XCTAssertEqual(d.warnings, [.highPacketsLostFraction])
        let changes = feed(&d, loss(Array(repeating: 0.01, count: 7)))
        XCTAssertEqual(changeIndex(changes), 6)
        XCTAssertEqual(
            changes[6]?.insightsEvents.map(\.qualifiedName), ["network-quality-warning-cleared:high-packets-lost-fraction"])
    }

    func testLossJustAbove1PercentKeepsTheWarning() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, loss(Array(repeating: 0.05, count: 7)))
        XCTAssertNil(changeIndex(feed(&d, loss(Array(repeating: 0.0101, count: 20)))))
        XCTAssertNil(changeIndex(feed(&d, loss(Array(repeating: 0.02, count: 20)))))
        XCTAssertEqual(d.warnings, [.highPacketsLostFraction])
    }

    func testLossClearsOnceTheLastLossySampleLeavesTheWindow() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, loss(Array(repeating: 0.1, count: 7)))
        // One 10 % sample in seven is 1.4 %: still raised after six clean seconds, cleared after seven.
        XCTAssertEqual(changeIndex(feed(&d, loss(Array(repeating: 0, count: 7)))), 6)
    }

    func testLossIsClampedAndNonFiniteIgnored() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, loss([-5, -5, -5, -5, -5, -5, .nan, 0.2]))))
        // Percent values are clamped to 1, so they still raise, but do not outweigh later clean samples.
        var e = CallQualityWarningDetector()
        XCTAssertEqual(changeIndex(feed(&e, loss([50, 0, 0, 0, 0, 0, 0]))), 6)
        XCTAssertEqual(changeIndex(feed(&e, loss([0]))), 0)
    }

    // MARK: Constant input level

    func testConstantInputLevelNeedsTenSamples() {
        var d = CallQualityWarningDetector()
        let changes = feed(&d, level(Array(repeating: 1000, count: 10)))
        XCTAssertEqual(changeIndex(changes), 9)
        XCTAssertEqual(
            changes[9]?.insightsEvents.map(\.qualifiedName), ["audio-level-warning-raised:constant-audio-input-level"])
        XCTAssertEqual(changes[9]?.insightsEvents.first?.level, .warning)
    }

    func testDeviationJustUnder1PercentRaises() {
        var d = CallQualityWarningDetector()
        XCTAssertEqual(changeIndex(feed(&d, level(alternating(1000, 1655)))), 9)  // 327.5
    }

    func testDeviationJustOver1PercentDoesNotRaise() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, level(alternating(1000, 1656, count: 30)))))  // 328
    }

    func testDeviationJustOver3PercentClears() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, level(Array(repeating: 1000, count: 10)))
        let changes = feed(&d, level(alternating(1000, 2967)))  // 983.5 once the window is all alternating
        XCTAssertEqual(changeIndex(changes), 9)
        XCTAssertEqual(
            changes[9]?.insightsEvents.map(\.qualifiedName), ["audio-level-warning-cleared:constant-audio-input-level"])
    }

    func testDeviationAt3PercentOrJustUnderKeepsTheWarning() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, level(Array(repeating: 1000, count: 10)))
        XCTAssertNil(changeIndex(feed(&d, level(alternating(1000, 2966, count: 30)))))  // 983
        XCTAssertNil(changeIndex(feed(&d, level(alternating(1000, 1800, count: 30)))))  // 400: between 1 % and 3 %
        XCTAssertEqual(d.warnings, [.constantAudioInputLevel])
    }

    func testMuteClearsAndResetsTheInputLevelWindow() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, level(Array(repeating: 0, count: 10)))
        let muted = feed(&d, level([0], muted: true))
        XCTAssertEqual(muted[0]?.cleared, [.constantAudioInputLevel])
        XCTAssertEqual(
            muted[0]?.insightsEvents.map(\.qualifiedName), ["audio-level-warning-cleared:constant-audio-input-level"])
        XCTAssertNil(changeIndex(feed(&d, level(Array(repeating: 0, count: 30), muted: true))))
        XCTAssertEqual(changeIndex(feed(&d, level(Array(repeating: 0, count: 10)))), 9)
    }

    func testMuteBeforeTheWindowFillsStartsItOver() {
        var d = CallQualityWarningDetector()
        XCTAssertNil(changeIndex(feed(&d, level(Array(repeating: 500, count: 9)))))
        XCTAssertNil(changeIndex(feed(&d, level([500], muted: true))))
        XCTAssertNil(changeIndex(feed(&d, level(Array(repeating: 500, count: 9)))))
        XCTAssertEqual(changeIndex(feed(&d, level([500]))), 0)
    }

    func testInputLevelsAreClamped() {
        var d = CallQualityWarningDetector()
        // 40000 and 32767 are the same level once clamped: constant.
        XCTAssertEqual(changeIndex(feed(&d, level(alternating(40000, 32767)))), 9)
    }

    // MARK: Changes and events

    func testSimultaneousWarningsComeInDeclarationOrderWithSidAndTime() {
        var d = CallQualityWarningDetector()
        let bad = CallQualitySample(rttMs: 900, jitterMs: 90, packetsLostFraction: 0, mos: 2, inputLevel: 0)
        let changes = feed(&d, Array(repeating: bad, count: 3), callSid: "CA0123")
        XCTAssertEqual(changeIndex(changes), 2)
        let change = changes[2]
        XCTAssertEqual(change?.current, [.highRtt, .highJitter, .lowMos])
        XCTAssertEqual(
            change?.insightsEvents.map(\.qualifiedName),
            [
                "network-quality-warning-raised:high-rtt", "network-quality-warning-raised:high-jitter",
                "network-quality-warning-raised:low-mos",
            ])
        XCTAssertEqual(change?.insightsEvents.map(\.callSid), ["CA0123", "CA0123", "CA0123"])
        XCTAssertEqual(change?.insightsEvents.map(\.timestamp), Array(repeating: start.addingTimeInterval(2), count: 3))
        XCTAssertEqual(change?.insightsEvents.first?.payload["threshold"], .double(400))
        XCTAssertEqual(change?.insightsEvents.first?.payload["values"], [900.0, 900.0, 900.0])
    }

    func testClearedEventsComeBeforeRaisedOnesInTheSameSample() {
        var d = CallQualityWarningDetector()
        _ = feed(&d, Array(repeating: CallQualitySample(rttMs: 900, inputLevel: 1000), count: 5))
        _ = feed(&d, Array(repeating: CallQualitySample(rttMs: 100, inputLevel: 1000), count: 4))
        XCTAssertEqual(d.warnings, [.highRtt])
        // Fifth low RTT clears high-rtt; tenth constant level raises the input-level warning.
        let changes = feed(&d, [CallQualitySample(rttMs: 100, inputLevel: 1000)], callSid: nil)
        XCTAssertEqual(changes[0]?.previous, [.highRtt])
        XCTAssertEqual(changes[0]?.current, [.constantAudioInputLevel])
        XCTAssertEqual(
            changes[0]?.insightsEvents.map(\.qualifiedName),
            ["network-quality-warning-cleared:high-rtt", "audio-level-warning-raised:constant-audio-input-level"])
        XCTAssertEqual(changes[0]?.insightsEvents.map(\.level), [.info, .warning])
    }

    func testGoodCallProducesNoChange() {
        var d = CallQualityWarningDetector()
        let samples = (0..<120).map { i in
            CallQualitySample(rttMs: 40, jitterMs: 3, packetsLostFraction: 0, mos: 4.3, inputLevel: (i * 7919) % 20000)
        }
        XCTAssertNil(changeIndex(feed(&d, samples)))
    }
}
