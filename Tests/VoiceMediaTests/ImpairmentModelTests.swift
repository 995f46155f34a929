import XCTest
import VoiceMedia
import VoiceTestKit

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
}
