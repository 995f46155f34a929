import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceMedia

final class CallQualitySamplerTests: XCTestCase {
    private func stats(received: UInt64, lost: Int64, fractionLost: Double = 0) -> AudioStreamStats {
        var s = AudioStreamStats()
        s.packetsReceived = received
        s.packetsLost = lost
        s.fractionLost = fractionLost
        s.jitterMs = 7
        s.rttMs = 120
        s.mos = 4.2
        s.inputLevel = 1234
        return s
    }

    func testSampleFromOneSnapshot() {
        let sample = CallQualitySample(streamStats: stats(received: 100, lost: 3, fractionLost: 0.05), isMuted: false)
        XCTAssertEqual(
            sample,
            CallQualitySample(rttMs: 120, jitterMs: 7, packetsLostFraction: 0.05, mos: 4.2, inputLevel: 1234, isMuted: false))
    }

    func testNoMosBeforeMediaAndHoldCountsAsMuted() {
        let sample = CallQualitySample(streamStats: stats(received: 0, lost: 0), isMuted: false, isOnHold: true)
        XCTAssertNil(sample.mos)
        XCTAssertTrue(sample.isMuted)
        XCTAssertTrue(CallQualitySample(streamStats: stats(received: 1, lost: 0), isMuted: true).isMuted)
    }

    func testLossIsMeasuredOverEachInterval() {
        var sampler = CallQualitySampler()
        // The first snapshot has no interval: the stream's RTCP-interval figure.
        XCTAssertEqual(sampler.sample(from: stats(received: 50, lost: 0, fractionLost: 0.5), isMuted: false)
            .packetsLostFraction, 0.5)
        // 45 received and 5 lost since: 10 %.
        XCTAssertEqual(sampler.sample(from: stats(received: 95, lost: 5), isMuted: false).packetsLostFraction, 0.1,
                       accuracy: 1e-12)
        // 50 received, none lost.
        XCTAssertEqual(sampler.sample(from: stats(received: 145, lost: 5, fractionLost: 0.3), isMuted: false)
            .packetsLostFraction, 0)
    }

    func testDuplicatesCannotMakeLossNegative() {
        var sampler = CallQualitySampler()
        _ = sampler.sample(from: stats(received: 50, lost: 4), isMuted: false)
        XCTAssertEqual(sampler.sample(from: stats(received: 102, lost: 2), isMuted: false).packetsLostFraction, 0)
    }

    func testIdleIntervalAndRestartedCountersFallBackToTheStreamFigure() {
        var sampler = CallQualitySampler()
        _ = sampler.sample(from: stats(received: 50, lost: 0), isMuted: false)
        XCTAssertEqual(sampler.sample(from: stats(received: 50, lost: 0, fractionLost: 0.2), isMuted: false)
            .packetsLostFraction, 0.2)
        XCTAssertEqual(sampler.sample(from: stats(received: 10, lost: 1, fractionLost: 0.25), isMuted: false)
            .packetsLostFraction, 0.25)
        // After the restart, deltas resume from the new counters: 10 received, 10 lost.
        XCTAssertEqual(sampler.sample(from: stats(received: 20, lost: 11), isMuted: false).packetsLostFraction, 0.5)
    }
}
