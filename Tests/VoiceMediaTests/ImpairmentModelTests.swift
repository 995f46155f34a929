import XCTest
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import VoiceMediaTypes

final class ImpairmentModelTests: XCTestCase {
    func testLossRateIsCloseToTheTargetAndRepeatable() {
        var a = ImpairmentModel(NetworkImpairment(lossRate: 0.05, seed: 9))
        var b = ImpairmentModel(NetworkImpairment(lossRate: 0.05, seed: 9))
        var decisionsA: [Bool] = [], decisionsB: [Bool] = []
        for i in 0..<20_000 {
            decisionsA.append(a.deliveryTime(forPacketAt: .milliseconds(Int64(i) * 20)) == nil)
            decisionsB.append(b.deliveryTime(forPacketAt: .milliseconds(Int64(i) * 20)) == nil)
        }
        XCTAssertEqual(decisionsA, decisionsB, "same seed, same decisions")
        XCTAssertEqual(Double(a.dropped) / 20_000, 0.05, accuracy: 0.006)
    }

    func testJitterAndReorderStayWithinBounds() {
        var m = ImpairmentModel(NetworkImpairment(baseDelay: .milliseconds(10), jitter: .milliseconds(30), reorderRate: 0.1, seed: 3))
        var maxDelay = MediaTime.zero, minDelay = MediaTime.seconds(10)
        for i in 0..<5_000 {
            let t = MediaTime.milliseconds(Int64(i) * 20)
            guard let due = m.deliveryTime(forPacketAt: t) else { return XCTFail("no loss configured") }
            maxDelay = max(maxDelay, due - t)
            minDelay = min(minDelay, due - t)
        }
        XCTAssertGreaterThanOrEqual(minDelay, .milliseconds(10))
        XCTAssertLessThanOrEqual(maxDelay, .milliseconds(10 + 30 + 30))
        XCTAssertGreaterThan(maxDelay, .milliseconds(45), "reordered packets are held past the next one")
        XCTAssertEqual(Double(m.reordered) / 5_000, 0.1, accuracy: 0.02)
    }

    func testBurstyLossKeepsTheRateAndMakesBurstsOfTheMeanLength() {
        let impairment = NetworkImpairment(lossRate: 0.05, meanBurstLength: 3, seed: 11)
        var m = ImpairmentModel(impairment)
        var again = ImpairmentModel(impairment)
        var bursts: [Int] = []
        var run = 0
        for i in 0..<200_000 {
            let t = MediaTime.milliseconds(Int64(i) * 20)
            let lost = m.deliveryTime(forPacketAt: t) == nil
            XCTAssertEqual(lost, again.deliveryTime(forPacketAt: t) == nil, "same seed, same decisions")
            if lost {
                run += 1
            } else if run > 0 {
                bursts.append(run)
                run = 0
            }
        }
        XCTAssertEqual(Double(m.dropped) / 200_000, 0.05, accuracy: 0.005)
        let mean = Double(bursts.reduce(0, +)) / Double(bursts.count)
        XCTAssertEqual(mean, 3, accuracy: 0.2, "mean burst length")
        XCTAssertGreaterThan(bursts.filter { $0 >= 3 }.count, bursts.count / 3, "bursts, not isolated losses")
    }

    func testIndependentLossHasShortBursts() {
        var m = ImpairmentModel(NetworkImpairment(lossRate: 0.05, seed: 11))
        var bursts: [Int] = []
        var run = 0
        for i in 0..<200_000 {
            if m.deliveryTime(forPacketAt: .milliseconds(Int64(i) * 20)) == nil {
                run += 1
            } else if run > 0 {
                bursts.append(run)
                run = 0
            }
        }
        let mean = Double(bursts.reduce(0, +)) / Double(bursts.count)
        XCTAssertEqual(mean, 1 / 0.95, accuracy: 0.05, "a geometric run length: 1 / (1 - loss)")
    }
}
