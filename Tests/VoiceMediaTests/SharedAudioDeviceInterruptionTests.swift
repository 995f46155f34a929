import Synchronization
import XCTest

@testable import VoiceMedia

#if canImport(Glibc)
    import Glibc
#endif

/// The shared device hub's interruptions: a device that fails, or cannot open for a reason that
/// may pass, interrupts every port on it; the hub reopens it with backoff, once for all ports,
/// and resumes them together.
final class SharedAudioDeviceInterruptionTests: XCTestCase {
    private let unplugged = AudioDeviceError(kind: .ioFailed, code: -ENODEV, message: "unplugged")
    private let busy = AudioDeviceError(kind: .openFailed, code: -EBUSY, message: "busy")

    func testAFailureInterruptsEveryPortAndOneReopenResumesThemAll() throws {
        let device = ManualAudioDevice()
        let reopen = ManualReopenSchedule()
        let hub = SharedAudioDevice(wrapping: device, reopen: reopen.schedule)
        let a = hub.makePort(), b = hub.makePort()
        let ca = CollectingAudioContext(), cb = CollectingAudioContext()
        try a.startCapturing(context: ca)
        try b.startCapturing(context: cb)

        device.fail(capture: true)
        let failure = AudioDeviceError(kind: .ioFailed, message: "unplugged")
        XCTAssertEqual(ca.events, [.interrupted(capture: true, failure)], "a port hears an interruption, not the failure")
        XCTAssertEqual(cb.events, [.interrupted(capture: true, failure)])
        XCTAssertTrue(hub.isInterrupted)
        XCTAssertEqual(reopen.pendingDelays, [.milliseconds(50)], "one reopen for both ports")

        device.state.withLock { $0.startError = unplugged }  // still gone at the first attempt
        XCTAssertEqual(reopen.runPending(), 1)
        XCTAssertEqual(reopen.pendingDelays, [.milliseconds(100)], "the next attempt backs off")
        XCTAssertEqual(ca.events.count, 1, "a failed attempt tells nobody anything new")
        XCTAssertTrue(hub.isInterrupted)

        XCTAssertEqual(reopen.runPending(), 1)
        XCTAssertEqual(reopen.pendingDelays, [])
        XCTAssertEqual(ca.events.last, .resumed(capture: true))
        XCTAssertEqual(cb.events.last, .resumed(capture: true))
        XCTAssertFalse(hub.isInterrupted)
        XCTAssertEqual(hub.interruptionCount, 1)
        let counts = device.snapshot
        XCTAssertEqual([counts.captureStarts, counts.captureStops], [2, 1], "the dead device was stopped and started once more")
        device.capture([5, 6, 7, 8])
        XCTAssertEqual(ca.captured, [5, 6, 7, 8], "both ports hear the reopened device")
        XCTAssertEqual(cb.captured, [5, 6, 7, 8])
        a.stopCapturing()
        b.stopCapturing()
        XCTAssertFalse(hub.isCapturing)
    }

    func testABusyDeviceInterruptsAStartingPortInsteadOfFailingIt() throws {
        let device = ManualAudioDevice()
        let reopen = ManualReopenSchedule()
        let hub = SharedAudioDevice(wrapping: device, reopen: reopen.schedule)
        let port = hub.makePort()
        let context = CollectingAudioContext()
        device.state.withLock { $0.startError = busy }
        try port.startCapturing(context: context)
        XCTAssertEqual(context.events, [.interrupted(capture: true, busy)])
        XCTAssertEqual(hub.capturingPortCount, 1, "the port is subscribed, waiting for the device")
        XCTAssertFalse(hub.isCapturing)

        // A second port joining the interrupted direction hears so at once and waits with it.
        let late = hub.makePort()
        let lateContext = CollectingAudioContext()
        try late.startCapturing(context: lateContext)
        XCTAssertEqual(lateContext.events, [.interrupted(capture: true, busy)])
        XCTAssertEqual(device.snapshot.captureStarts, 0, "joining does not try the device again")

        XCTAssertEqual(reopen.runPending(), 1)  // the device is free now
        XCTAssertEqual(context.events.last, .resumed(capture: true))
        XCTAssertEqual(lateContext.events.last, .resumed(capture: true))
        device.capture([1, 2, 3, 4])
        XCTAssertEqual(context.captured, [1, 2, 3, 4])
        XCTAssertEqual(lateContext.captured, [1, 2, 3, 4])
    }

    func testAPermanentStartErrorStillFailsThePort() throws {
        let device = ManualAudioDevice()
        let reopen = ManualReopenSchedule()
        let hub = SharedAudioDevice(wrapping: device, reopen: reopen.schedule)
        let missing = AudioDeviceError(kind: .openFailed, code: -ENOENT, message: "no such PCM")
        device.state.withLock { $0.startError = missing }
        XCTAssertThrowsError(try hub.makePort().startCapturing(context: CollectingAudioContext())) {
            XCTAssertEqual($0 as? AudioDeviceError, missing)
        }
        XCTAssertEqual(hub.capturingPortCount, 0)
        XCTAssertEqual(reopen.pendingDelays, [], "nothing to wait for")
        XCTAssertFalse(hub.isInterrupted)
    }

    func testTheLastPortLeavingEndsTheReopenAttempts() throws {
        let device = ManualAudioDevice()
        let reopen = ManualReopenSchedule()
        let hub = SharedAudioDevice(wrapping: device, reopen: reopen.schedule)
        let port = hub.makePort()
        try port.startRendering(context: CollectingAudioContext())
        device.fail(capture: false)
        XCTAssertTrue(hub.isInterrupted)
        port.stopRendering()
        XCTAssertFalse(hub.isInterrupted, "nobody uses the device: nothing is interrupted")
        XCTAssertEqual(reopen.runPending(), 1)
        XCTAssertEqual(device.snapshot.renderStarts, 1, "the attempt scheduled before found nobody and did nothing")
        XCTAssertEqual(reopen.pendingDelays, [])
    }

    func testADeviceThatFailsAgainRightAfterReopeningStaysInterrupted() throws {
        let device = ManualAudioDevice()
        let reopen = ManualReopenSchedule()
        let hub = SharedAudioDevice(wrapping: device, reopen: reopen.schedule)
        let port = hub.makePort()
        let context = CollectingAudioContext()
        try port.startCapturing(context: context)
        device.fail(capture: true)
        reopen.runPending()
        XCTAssertEqual(context.events.last, .resumed(capture: true))
        device.fail(capture: true)
        XCTAssertTrue(hub.isInterrupted)
        XCTAssertEqual(hub.interruptionCount, 2)
        XCTAssertEqual(reopen.pendingDelays, [.milliseconds(50)], "a device that ran again starts the backoff afresh")
    }

    func testBackoffDoublesFromFiftyMillisecondsToHalfASecond() {
        let schedule = AudioDeviceReopenSchedule.standard
        XCTAssertEqual((0..<7).map { schedule.delay(beforeAttempt: $0) }, [50, 100, 200, 400, 500, 500, 500].map { .milliseconds($0) })
    }

    func testTransientErrorsAreTheOnesThatMayPass() {
        for code in [EBUSY, EAGAIN, ENODEV, EIO, ECONNREFUSED, ESTRPIPE] {
            XCTAssertTrue(AudioDeviceError(kind: .openFailed, code: -code, message: "").isTransient, "errno \(code)")
        }
        for code: Int32 in [ENOENT, EINVAL, 0] {
            XCTAssertFalse(AudioDeviceError(kind: .openFailed, code: -code, message: "").isTransient, "errno \(code)")
        }
    }
}
