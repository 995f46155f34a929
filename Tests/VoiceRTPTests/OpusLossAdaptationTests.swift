import XCTest

@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class OpusLossAdaptationTests: XCTestCase {
    typealias Setting = OpusLossAdaptation.Setting

    private var parameters: OpusLossAdaptation.Parameters {
        var p = OpusLossAdaptation.Parameters()
        p.initialHint = 4
        p.hintPerLossPercent = 1
        p.minimumHint = 3
        p.maximumHint = 10
        p.cleanFraction = 0.01
        p.cleanReportsToRelax = 2
        p.fecBitrateFactor = 1.25
        return p
    }

    func testProtectsFromTheFirstPacketAtTheInitialHintAndTheFECBitrate() {
        let policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: parameters)
        XCTAssertEqual(policy.setting, Setting(fec: true, lossHint: 4, bitrate: 40_000))
    }

    func testAZeroInitialHintStartsUnprotected() {
        var p = parameters
        p.initialHint = 0
        let policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: p)
        XCTAssertEqual(policy.setting, Setting(fec: false, lossHint: 0, bitrate: 32_000))
    }

    func testTheHintFollowsTheMeasuredLossWithinItsRange() {
        var policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: parameters)
        XCTAssertEqual(policy.reportReceived(fractionLost: 0.06)?.lossHint, 6, "the loss itself, not twice it")
        XCTAssertEqual(policy.reportReceived(fractionLost: 0.30)?.lossHint, 10, "capped at the maximum")
        var low = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: parameters)
        XCTAssertEqual(low.reportReceived(fractionLost: 0.015)?.lossHint, 3, "never below the minimum while FEC is on")
        XCTAssertTrue(low.setting.fec)
        XCTAssertEqual(low.setting.bitrate, 40_000)
    }

    func testTheEstimateRisesAtOnceAndDecaysHalfwayPerLowerReport() {
        var policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: parameters)
        _ = policy.reportReceived(fractionLost: 0.08)
        XCTAssertEqual(policy.estimate, 0.08, accuracy: 1e-9)
        _ = policy.reportReceived(fractionLost: 0.04)
        XCTAssertEqual(policy.estimate, 0.06, accuracy: 1e-9)
        XCTAssertEqual(policy.setting.lossHint, 6)
        _ = policy.reportReceived(fractionLost: 0.10)
        XCTAssertEqual(policy.estimate, 0.10, accuracy: 1e-9)
    }

    func testCleanReportsInARowSwitchFECOffAndTheBitrateBack() {
        var policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: parameters)
        XCTAssertEqual(
            policy.reportReceived(fractionLost: 0), Setting(fec: true, lossHint: 3, bitrate: 40_000),
            "one clean report is not enough to switch off; the hint drops to the minimum")
        XCTAssertEqual(policy.reportReceived(fractionLost: 0), Setting(fec: false, lossHint: 0, bitrate: 32_000))
        XCTAssertNil(policy.reportReceived(fractionLost: 0))
        XCTAssertEqual(policy.reportReceived(fractionLost: 0.05), Setting(fec: true, lossHint: 5, bitrate: 40_000), "back on at the first loss")
    }

    func testAfterLossFECStaysOnUntilTheEstimateHasDecayed() {
        var policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: parameters)
        _ = policy.reportReceived(fractionLost: 0.10)
        var reports = 0
        while policy.setting.fec, reports < 20 {
            _ = policy.reportReceived(fractionLost: 0)
            reports += 1
        }
        XCTAssertEqual(reports, 4, "10 % → 5 → 2.5 → 1.25 → 0.6 %: off once below 1 % after two clean reports")
    }

    func testTheFECBitrateStaysWithinTheCeiling() {
        let capped = OpusLossAdaptation(bitrate: 32_000, ceiling: 36_000, parameters: parameters)
        XCTAssertEqual(capped.setting.bitrate, 36_000)
        let none = OpusLossAdaptation(bitrate: 32_000, ceiling: nil, parameters: parameters)
        XCTAssertEqual(none.setting.bitrate, 32_000, "no ceiling given: never above the clean bitrate")
    }

    func testOutOfRangeReportsAreClamped() {
        var policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 64_000, parameters: parameters)
        _ = policy.reportReceived(fractionLost: .nan)
        XCTAssertEqual(policy.estimate, 0)
        _ = policy.reportReceived(fractionLost: -1)
        XCTAssertEqual(policy.estimate, 0)
        _ = policy.reportReceived(fractionLost: 7)
        XCTAssertEqual(policy.estimate, 1)
        XCTAssertEqual(policy.setting.lossHint, 10)
    }

    func testVoicedPacketsWithoutRedundancyRaiseTheHintUntilLibopusSendsIt() {
        var p = parameters
        p.unprotectedVoicedLimit = 3
        p.hintStep = 2
        var policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 32_000, parameters: p)
        let bare = OpusSILKFlags(voiced: true, lbrr: false)
        XCTAssertNil(policy.packetSent(bare))
        XCTAssertNil(policy.packetSent(OpusSILKFlags(voiced: false, lbrr: false)), "silence does not count")
        XCTAssertNil(policy.packetSent(bare))
        XCTAssertEqual(policy.packetSent(bare), Setting(fec: true, lossHint: 6, bitrate: 32_000), "4 + 2")
        XCTAssertEqual(policy.hintFloor, 6)
        XCTAssertNil(policy.packetSent(OpusSILKFlags(voiced: true, lbrr: true)), "redundancy: the count starts over")
        XCTAssertNil(policy.packetSent(bare))
        XCTAssertNil(policy.packetSent(bare))
        // Later reports keep the floor, even above the maximum hint.
        _ = policy.reportReceived(fractionLost: 0.02)
        XCTAssertEqual(policy.setting.lossHint, 6)
        for _ in 0..<100 { _ = policy.packetSent(bare) }
        XCTAssertEqual(policy.setting.lossHint, OpusLossAdaptation.hintCeiling, "rises no further than libopus's own ceiling")
    }

    func testWithFECOffPacketsChangeNothing() {
        var p = parameters
        p.initialHint = 0
        p.unprotectedVoicedLimit = 1
        var policy = OpusLossAdaptation(bitrate: 32_000, ceiling: 40_000, parameters: p)
        XCTAssertNil(policy.packetSent(OpusSILKFlags(voiced: true, lbrr: false)))
        XCTAssertEqual(policy.hintFloor, 0)
    }
}
