import VoiceEmbedded
import XCTest
import VoiceSupport

@testable import VoiceMedia

#if canImport(Glibc)
    import Glibc
#endif

/// The ALSA device's handling of the errors a machine without a sound card cannot produce,
/// injected in place of libasound's and recovered by the real `snd_pcm_recover` on a real
/// (`null`) PCM: xruns and suspends are recovered in place and reported, an unplugged device
/// fails with its errno, a busy one refuses to open with a transient error.
final class ALSAFaultInjectionTests: XCTestCase {
    private func device(_ faults: ALSAFaultInjection) throws -> ALSAAudioDevice {
        try ALSAAudioDevice(configuration: .init(captureDevice: "null", playbackDevice: "null"), faults: faults)
    }

    func testAnXrunStormIsRecoveredInPlaceAndEveryXrunReported() throws {
        let faults = ALSAFaultInjection()
        let device = try device(faults)
        let context = CollectingAudioContext()
        faults.failTransfers(errno: EPIPE, count: 20, every: 2, capture: true)
        faults.failTransfers(errno: EPIPE, count: 20, every: 2, capture: false)
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        XCTAssertTrue(PollingWait.until(timeout: 5) { context.events.count >= 40 })
        let before = context.captureCalls
        XCTAssertTrue(PollingWait.until(timeout: 2) { context.captureCalls >= before + 20 }, "capture runs on after the storm")
        device.stopCapturing()
        device.stopRendering()
        let events = context.events
        XCTAssertEqual(events.filter { $0 == .xrunRecovered(capture: true) }.count, 20)
        XCTAssertEqual(events.filter { $0 == .xrunRecovered(capture: false) }.count, 20)
        XCTAssertFalse(events.contains { if case .failed = $0 { true } else { false } }, "no xrun is a failure: \(events)")
    }

    func testASuspendIsResumedInPlace() throws {
        let faults = ALSAFaultInjection()
        let device = try device(faults)
        let context = CollectingAudioContext()
        faults.failTransfers(errno: ESTRPIPE, count: 1, capture: true)
        try device.startCapturing(context: context)
        XCTAssertTrue(PollingWait.until(timeout: 5) { context.events == [.suspendRecovered(capture: true)] })
        let before = context.captureCalls
        XCTAssertTrue(PollingWait.until(timeout: 2) { context.captureCalls >= before + 10 }, "capture runs on after the resume")
        device.stopCapturing()
        XCTAssertEqual(context.events, [.suspendRecovered(capture: true)])
    }

    func testAnUnpluggedDeviceFailsWithItsErrnoAndStaysGoneUntilPluggedBack() throws {
        let faults = ALSAFaultInjection()
        let device = try device(faults)
        let context = CollectingAudioContext()
        try device.startRendering(context: context)
        faults.failOpens(errno: ENODEV)
        faults.failTransfers(errno: ENODEV, count: 1, capture: false)
        XCTAssertTrue(PollingWait.until(timeout: 5) { !context.events.isEmpty })
        guard case .failed(let error) = context.events.first else { return XCTFail("\(context.events)") }
        XCTAssertEqual(error.code, -ENODEV)
        XCTAssertTrue(error.isTransient)
        device.stopRendering()
        XCTAssertThrowsError(try device.startRendering(context: context)) {
            XCTAssertEqual(($0 as? AudioDeviceError)?.code, -ENODEV)
        }
        faults.clearOpenFailures()
        try device.startRendering(context: context)
        device.stopRendering()
    }

    func testABusyDeviceRefusesToOpenWithATransientError() throws {
        let faults = ALSAFaultInjection()
        let device = try device(faults)
        faults.failOpens(errno: EBUSY, times: 1)
        XCTAssertThrowsError(try device.startCapturing(context: CollectingAudioContext())) {
            let error = $0 as? AudioDeviceError
            XCTAssertEqual(error?.kind, .openFailed)
            XCTAssertEqual(error?.code, -EBUSY)
            XCTAssertEqual(error?.isTransient, true)
            XCTAssertTrue(error?.message.contains("busy") ?? false, "snd_strerror's text: \(String(describing: error))")
        }
        try device.startCapturing(context: CollectingAudioContext())
        device.stopCapturing()
        XCTAssertEqual(faults.opens, 2)
    }
}
