import VoiceSupport
import XCTest

@testable import VoiceMedia

/// Who paces a direction of a stream's audio, as a value: no clock but the one passed in.
final class AudioDirectionPacingTests: XCTestCase {
    private func ms(_ value: Int64) -> MediaTime { .milliseconds(value) }

    func testWithoutADeviceTheEngineClockPacesFromTheFirstTick() {
        var pacing = AudioDirectionPacing(hasDevice: false)
        XCTAssertFalse(pacing.update(interrupted: false, deviceCount: 0, now: ms(40)))
        XCTAssertEqual(pacing.pacer, .engineClock(.noDevice, next: ms(40)))
        XCTAssertEqual(pacing.due(by: ms(40)), ms(40))
        pacing.advance(to: ms(60))
        XCTAssertNil(pacing.due(by: ms(59)))
        XCTAssertEqual(pacing.due(by: ms(75)), ms(60))
        XCTAssertFalse(pacing.update(interrupted: true, deviceCount: 0, now: ms(80)), "no device: an interruption changes nothing")
        XCTAssertEqual(pacing.pacer, .engineClock(.noDevice, next: ms(60)))
    }

    func testAnInterruptionHandsPacingToTheClockAndItsEndSaysTheDevicesAudioIsStale() {
        var pacing = AudioDirectionPacing(hasDevice: true)
        XCTAssertFalse(pacing.update(interrupted: false, deviceCount: 1, now: ms(0)))
        XCTAssertEqual(pacing.pacer, .device)
        XCTAssertFalse(pacing.update(interrupted: true, deviceCount: 2, now: ms(20)))
        XCTAssertEqual(pacing.pacer, .engineClock(.interrupted, next: ms(20)))
        pacing.advance(to: ms(40))
        XCTAssertFalse(pacing.update(interrupted: true, deviceCount: 2, now: ms(40)), "still interrupted")
        XCTAssertEqual(pacing.pacer, .engineClock(.interrupted, next: ms(40)), "the clock keeps its phase")
        XCTAssertTrue(pacing.update(interrupted: false, deviceCount: 3, now: ms(60)), "back to the device: stale audio")
        XCTAssertEqual(pacing.pacer, .device)
        XCTAssertNil(pacing.due(by: ms(1_000)))
    }

    func testADeviceThatStopsMovingAudioIsStoodInForUntilItMovesAgain() {
        var pacing = AudioDirectionPacing(hasDevice: true)
        var count: UInt64 = 0
        for t in stride(from: Int64(0), through: 100, by: 10) {
            count += 1
            XCTAssertFalse(pacing.update(interrupted: false, deviceCount: count, now: ms(t)))
        }
        XCTAssertEqual(pacing.pacer, .device)
        // The count stands still past the watch's threshold.
        XCTAssertFalse(pacing.update(interrupted: false, deviceCount: count, now: ms(150)))
        XCTAssertFalse(pacing.update(interrupted: false, deviceCount: count, now: ms(220)))
        XCTAssertEqual(pacing.pacer, .engineClock(.stalled, next: ms(220)))
        XCTAssertEqual(pacing.watch.stalls, 1)
        XCTAssertTrue(pacing.update(interrupted: false, deviceCount: count + 1, now: ms(240)), "it moved: what it delivered late is stale")
        XCTAssertEqual(pacing.pacer, .device)
    }

    func testRestartingTheClockMovesTheNextFrameToNow() {
        var pacing = AudioDirectionPacing(hasDevice: false)
        _ = pacing.update(interrupted: false, deviceCount: 0, now: ms(0))
        pacing.advance(to: ms(60))
        pacing.restartClock(at: ms(30))
        XCTAssertEqual(pacing.due(by: ms(30)), ms(30))
        var device = AudioDirectionPacing(hasDevice: true)
        device.restartClock(at: ms(30))
        XCTAssertEqual(device.pacer, .device, "a device keeps pacing")
    }
}
