import VoiceSupport
import XCTest

@testable import VoiceSIP

/// The keep-alive schedule on a virtual clock: pings every interval, a path failed after one
/// goes unanswered for the timeout, quicker pings while failed, recovery on the first answer.
final class SIPFlowLivenessTests: XCTestCase {
    private func at(_ seconds: Double) -> MediaTime { .milliseconds(Int64(seconds * 1000)) }

    func testAnAnsweringHopIsPingedEveryIntervalAndNeverFails() {
        var flow = SIPFlowLiveness(now: .zero)
        XCTAssertEqual(flow.nextDeadline, at(15))
        XCTAssertEqual(flow.tick(now: at(14.999)), [])
        for ping in [15.0, 30, 45] {
            XCTAssertEqual(flow.tick(now: at(ping)), [.sendPing])
            XCTAssertEqual(flow.nextDeadline, at(ping + 10), "the answer is due within the timeout")
            XCTAssertEqual(flow.answered(now: at(ping + 0.05)), [])
            XCTAssertEqual(flow.nextDeadline, at(ping + 15))
        }
        XCTAssertFalse(flow.isFailed)
    }

    func testASilentHopFailsAtTheTimeoutThenIsPingedQuicklyAndRecoversOnAnAnswer() {
        var flow = SIPFlowLiveness(now: .zero)
        XCTAssertEqual(flow.tick(now: at(15)), [.sendPing])
        XCTAssertEqual(flow.tick(now: at(24.999)), [])
        XCTAssertEqual(flow.tick(now: at(25)), [.failed], "25 s after the path died at 0: within the 30 s bound")
        XCTAssertTrue(flow.isFailed)
        XCTAssertEqual(flow.tick(now: at(26)), [], "failed once, not again")
        XCTAssertEqual(flow.nextDeadline, at(30))
        XCTAssertEqual(flow.tick(now: at(30)), [.sendPing])
        XCTAssertEqual(flow.nextDeadline, at(32), "every 2 s while failed")
        XCTAssertEqual(flow.tick(now: at(32)), [.sendPing])
        XCTAssertEqual(flow.answered(now: at(32.1)), [.recovered])
        XCTAssertFalse(flow.isFailed)
        XCTAssertEqual(flow.answered(now: at(32.2)), [], "a late answer to an older ping changes nothing")
        XCTAssertEqual(flow.nextDeadline, at(47.1))
    }

    func testTheTimeoutCountsFromTheOldestUnansweredPing() {
        var flow = SIPFlowLiveness(configuration: .init(interval: .seconds(5), timeout: .seconds(8)), now: .zero)
        XCTAssertEqual(flow.tick(now: at(5)), [.sendPing])
        XCTAssertEqual(flow.tick(now: at(10)), [.sendPing], "the next ping goes, unanswered as the first")
        XCTAssertEqual(flow.nextDeadline, at(13), "8 s after the first, not the second")
        XCTAssertEqual(flow.tick(now: at(13)), [.failed])
    }
}
