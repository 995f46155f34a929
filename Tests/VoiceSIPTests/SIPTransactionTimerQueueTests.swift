import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SIPTransactionTimerQueueTests: XCTestCase {
    private func id(_ branch: String, _ timer: SIPTransactionTimer) throws -> SIPTransactionTimerQueue.ID {
        .init(key: try SIPTransactionKey.client(branch: branch, method: "OPTIONS"), timer: timer)
    }

    func testFiresInDeadlineThenSchedulingOrder() throws {
        var queue = SIPTransactionTimerQueue()
        try queue.schedule(id("z9hG4bK1", .e), at: .milliseconds(30))
        try queue.schedule(id("z9hG4bK2", .e), at: .milliseconds(10))
        try queue.schedule(id("z9hG4bK3", .e), at: .milliseconds(10))
        XCTAssertEqual(queue.nextDeadline, .milliseconds(10))
        XCTAssertNil(queue.popDue(notAfter: .milliseconds(9)))
        XCTAssertEqual(queue.popDue(notAfter: .milliseconds(100))?.id, try id("z9hG4bK2", .e))
        XCTAssertEqual(queue.popDue(notAfter: .milliseconds(100))?.id, try id("z9hG4bK3", .e))
        XCTAssertEqual(queue.popDue(notAfter: .milliseconds(100))?.id, try id("z9hG4bK1", .e))
        XCTAssertNil(queue.popDue(notAfter: .milliseconds(100)))
        XCTAssertNil(queue.nextDeadline)
    }

    func testRescheduleAndCancelLeaveNoStaleFirings() throws {
        var queue = SIPTransactionTimerQueue()
        try queue.schedule(id("z9hG4bK1", .e), at: .milliseconds(10))
        try queue.schedule(id("z9hG4bK1", .e), at: .milliseconds(50))
        XCTAssertEqual(queue.nextDeadline, .milliseconds(50), "the replaced deadline is gone")
        XCTAssertEqual(queue.count, 1)
        try queue.schedule(id("z9hG4bK1", .f), at: .milliseconds(20))
        try queue.cancel(id("z9hG4bK1", .f))
        XCTAssertEqual(queue.nextDeadline, .milliseconds(50))
        let key = try SIPTransactionKey.client(branch: "z9hG4bK1", method: "OPTIONS")
        queue.cancelAll(for: key)
        XCTAssertNil(queue.nextDeadline)
        XCTAssertEqual(queue.count, 0)
    }

    func testManyCancellationsKeepTheQueueConsistent() throws {
        var queue = SIPTransactionTimerQueue()
        for index in 0..<1_000 {
            try queue.schedule(id("z9hG4bK\(index)", .f), at: .milliseconds(Int64(1_000 - index)))
        }
        for index in stride(from: 0, to: 1_000, by: 2) { try queue.cancel(id("z9hG4bK\(index)", .f)) }
        XCTAssertEqual(queue.count, 500)
        var last = MediaTime.zero
        var fired = 0
        while let entry = queue.popDue(notAfter: .milliseconds(10_000)) {
            XCTAssertGreaterThanOrEqual(entry.deadline, last)
            last = entry.deadline
            fired += 1
        }
        XCTAssertEqual(fired, 500)
    }
}
