import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

/// The jitter buffer's sliding delay window: minimum and nearest-rank quantile.
final class JitterBufferDelayWindowTests: XCTestCase {
    func testQuantileAndMinimumOfShuffledValues() {
        var w = JitterDelayWindow(size: 100, quantile: 0.95)
        var rng = JitterTestRandom(state: 9)
        var values = Array(Int64(1)...100)
        for i in values.indices.reversed() { values.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        for v in values { w.add(v * 10) }
        w.refresh()
        XCTAssertEqual(w.count, 100)
        XCTAssertEqual(w.minimum, 10)
        XCTAssertEqual(w.quantileValue, 950)
    }

    func testWindowSlidesOldSamplesOut() {
        var w = JitterDelayWindow(size: 4, quantile: 1.0)
        for v: Int64 in [-50, 900, 3, 4] { w.add(v) }
        w.refresh()
        XCTAssertEqual(w.minimum, -50)
        XCTAssertEqual(w.quantileValue, 900)
        w.add(5)
        w.add(6)  // -50 and 900 are gone
        w.refresh()
        XCTAssertEqual(w.count, 4)
        XCTAssertEqual(w.minimum, 3)
        XCTAssertEqual(w.quantileValue, 6)
    }

    func testQuantileWithDuplicatesAndPartialWindow() {
        var w = JitterDelayWindow(size: 250, quantile: 0.5)
        for v: Int64 in [7, 7, 7, 1, 7, 9] { w.add(v) }
        w.refresh()
        XCTAssertEqual(w.count, 6)
        XCTAssertEqual(w.quantileValue, 7)  // rank ceil(0.5·6) = 3rd smallest of 1,7,7,7,7,9
        XCTAssertEqual(w.minimum, 1)
        w.removeAll()
        XCTAssertEqual(w.count, 0)
        w.add(42)
        w.refresh()
        XCTAssertEqual(w.quantileValue, 42)
        XCTAssertEqual(w.minimum, 42)
    }

    func testSelectionMatchesSortingOnRandomData() {
        var rng = JitterTestRandom(state: 1234)
        for size in [1, 2, 3, 17, 250] {
            for q in [0.0, 0.5, 0.95, 1.0] {
                var w = JitterDelayWindow(size: size, quantile: q)
                var kept: [Int64] = []
                for _ in 0..<(size * 3) {
                    let v = rng.int(in: -1_000...1_000)
                    w.add(v)
                    kept.append(v)
                }
                let window = Array(kept.suffix(size)).sorted()
                let rank = min(size - 1, max(0, Int((q * Double(size)).rounded(.up)) - 1))
                w.refresh()
                XCTAssertEqual(w.quantileValue, window[rank], "size \(size) q \(q)")
                XCTAssertEqual(w.minimum, window[0])
            }
        }
    }

    /// The sorted copy stays exact through every add, eviction of duplicates and emptying.
    func testEveryAddMatchesSortingTheWindowIncludingDuplicatesAndRestarts() {
        var rng = JitterTestRandom(state: 77)
        for size in [1, 2, 5, 250] {
            var w = JitterDelayWindow(size: size, quantile: 0.95)
            var kept: [Int64] = []
            for step in 0..<(size * 4 + 10) {
                if step == size * 2 {
                    w.removeAll()
                    kept.removeAll()
                }
                let v = rng.int(in: -3...3)  // many equal values
                w.add(v)
                kept.append(v)
                let window = Array(kept.suffix(size)).sorted()
                let rank = min(window.count - 1, max(0, Int((0.95 * Double(window.count)).rounded(.up)) - 1))
                w.refresh()
                XCTAssertEqual(w.count, window.count)
                XCTAssertEqual(w.minimum, window[0], "size \(size) step \(step)")
                XCTAssertEqual(w.quantileValue, window[rank], "size \(size) step \(step)")
            }
        }
    }
}
