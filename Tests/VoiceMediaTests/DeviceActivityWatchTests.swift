import XCTest
import VoiceSupport

@testable import VoiceMedia

/// The stall watch on a virtual clock: a direction whose count of buffers stands still for
/// more than 100 ms is stalled until it moves again.
final class DeviceActivityWatchTests: XCTestCase {
    func testACountStandingStillForMoreThanTheThresholdIsAStall() {
        var watch = DeviceActivityWatch()
        let t0 = MediaTime.seconds(5)
        XCTAssertFalse(watch.isStalled(count: 0, now: t0), "the first look starts the clock")
        XCTAssertFalse(watch.isStalled(count: 0, now: t0 + .milliseconds(100)), "exactly the threshold is not yet a stall")
        XCTAssertTrue(watch.isStalled(count: 0, now: t0 + .milliseconds(101)))
        XCTAssertTrue(watch.isStalled(count: 0, now: t0 + .seconds(2)))
        XCTAssertEqual(watch.stalls, 1, "one stall, however long")
        XCTAssertFalse(watch.isStalled(count: 1, now: t0 + .seconds(2) + .milliseconds(10)), "it moved")
        XCTAssertFalse(watch.isStalled(count: 1, now: t0 + .seconds(2) + .milliseconds(110)))
        XCTAssertTrue(watch.isStalled(count: 1, now: t0 + .seconds(2) + .milliseconds(111)))
        XCTAssertEqual(watch.stalls, 2)
    }

    func testADeviceMovingEveryPeriodNeverStalls() {
        var watch = DeviceActivityWatch()
        for tick in 0..<1_000 {
            // A 10 ms device looked at on a 10 ms engine tick that sometimes runs 60 ms late.
            let late = tick % 97 == 0 ? 60 : 0
            XCTAssertFalse(watch.isStalled(count: UInt64(tick), now: .milliseconds(Int64(tick * 10 + late))))
        }
        XCTAssertEqual(watch.stalls, 0)
    }

    func testResetStartsOver() {
        var watch = DeviceActivityWatch()
        _ = watch.isStalled(count: 0, now: .zero)
        XCTAssertTrue(watch.isStalled(count: 0, now: .seconds(1)))
        watch.reset()
        XCTAssertFalse(watch.isStalled(count: 0, now: .seconds(2)))
        XCTAssertEqual(watch.stalls, 0)
    }
}
