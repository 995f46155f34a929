import VoiceEmbedded
import CMallocCounter
import Synchronization
import VoiceSupport
import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceMediaTypes

/// The shared-device hub: capture fan-out, render mix, start/stop of the underlying device,
/// events, failures, and the real-time rules, on a hand-driven device and a real-time buffer device.
final class SharedAudioDeviceTests: XCTestCase {
    func testEveryCapturingPortReceivesEachCapturedBuffer() throws {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort(), b = hub.makePort()
        let ca = CollectingAudioContext(), cb = CollectingAudioContext()
        try a.startCapturing(context: ca)
        device.capture([1, 2, 3, 4])
        try b.startCapturing(context: cb)
        device.capture([5, -6, 7, -8])
        device.capture([9, 10, 11, 12])
        XCTAssertEqual(ca.captured, [1, 2, 3, 4, 5, -6, 7, -8, 9, 10, 11, 12])
        XCTAssertEqual(cb.captured, [5, -6, 7, -8, 9, 10, 11, 12], "a port hears the device from its start on")
        XCTAssertEqual(hub.capturingPortCount, 2)
        XCTAssertEqual(a.captureFormat, device.format)
        XCTAssertEqual(b.renderFormat, device.format)
    }

    func testRenderIsTheSaturatingSumOfThePorts() throws {
        let device = ManualAudioDevice()  // 4-sample periods: the hub mixes through a 4-sample scratch.
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort(), b = hub.makePort()
        let ca = CollectingAudioContext(renderSource: [1_000, 30_000, -30_000, -5, 20_000, -20_000, 100, 0, 32_767, -32_768])
        let cb = CollectingAudioContext(renderSource: [2_000, 10_000, -10_000, 5, 20_000, -20_000, -100, -1, 1, -1])
        try a.startRendering(context: ca)
        try b.startRendering(context: cb)
        // Ten samples, more than one period: mixed in chunks of 4, 4 and 2.
        XCTAssertEqual(device.render(count: 10), [3_000, 32_767, -32_768, 0, 32_767, -32_768, 0, -1, 32_767, -32_768])
        XCTAssertEqual(ca.renderedSamples, 10)
        XCTAssertEqual(cb.renderedSamples, 10)
        XCTAssertEqual(device.render(count: 4), [0, 0, 0, 0], "both sources ended: silence")
    }

    func testOneRenderingPortPlaysStraightThrough() throws {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort()
        let ca = CollectingAudioContext(renderSource: [32_767, -32_768, 1, -1, 5, 6])
        try a.startRendering(context: ca)
        XCTAssertEqual(device.render(count: 6), [32_767, -32_768, 1, -1, 5, 6])
        XCTAssertEqual(ca.renderCalls, 1, "one call for the whole buffer, not chunks")
    }

    func testStoppingOnePortLeavesTheOtherRunning() throws {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort(), b = hub.makePort()
        let ca = CollectingAudioContext(renderSource: [Int16](repeating: 100, count: 100))
        let cb = CollectingAudioContext(renderSource: [Int16](repeating: 20, count: 100))
        for (port, context) in [(a, ca), (b, cb)] {
            try port.startCapturing(context: context)
            try port.startRendering(context: context)
        }
        XCTAssertEqual(device.render(count: 4), [120, 120, 120, 120])
        a.stopCapturing()
        a.stopRendering()
        ca.close()
        device.capture([1, 2, 3, 4])
        XCTAssertEqual(device.render(count: 4), [20, 20, 20, 20], "only b's audio is played")
        XCTAssertEqual(cb.captured, [1, 2, 3, 4])
        XCTAssertEqual(ca.callbacksAfterClose, 0, "a stopped port's context is not called")
        XCTAssertEqual(ca.captured, [])
        XCTAssertEqual(hub.capturingPortCount, 1)
        XCTAssertEqual(hub.renderingPortCount, 1)
        let counts = device.snapshot
        XCTAssertEqual([counts.captureStops, counts.renderStops], [0, 0], "the device keeps running for b")
    }

    func testDeviceStartsWithTheFirstPortAndStopsAfterTheLast() throws {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort(), b = hub.makePort()
        let ca = CollectingAudioContext(), cb = CollectingAudioContext()
        XCTAssertFalse(hub.isCapturing)
        try a.startCapturing(context: ca)
        try b.startCapturing(context: cb)
        try a.startRendering(context: ca)
        try b.startRendering(context: cb)
        var counts = device.snapshot
        XCTAssertEqual([counts.captureStarts, counts.renderStarts], [1, 1], "started once for two ports")
        XCTAssertTrue(hub.isCapturing && hub.isRendering)

        b.stopCapturing()
        b.stopRendering()
        counts = device.snapshot
        XCTAssertEqual([counts.captureStops, counts.renderStops], [0, 0])
        a.stopCapturing()
        a.stopRendering()
        counts = device.snapshot
        XCTAssertEqual([counts.captureStops, counts.renderStops], [1, 1], "stopped after the last port")
        XCTAssertNil(counts.captureContext)
        XCTAssertNil(counts.renderContext)
        XCTAssertFalse(hub.isCapturing || hub.isRendering)

        try b.startCapturing(context: cb)
        XCTAssertEqual(device.snapshot.captureStarts, 2, "the next port starts it again")
        b.stopCapturing()
    }

    func testStopIsIdempotentAndReleasingAPortStopsIt() throws {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort()
        let ca = CollectingAudioContext()
        a.stopCapturing()  // never started
        try a.startCapturing(context: ca)
        try a.startRendering(context: ca)
        a.stopCapturing()
        a.stopCapturing()
        a.stopRendering()
        a.stopRendering()
        var counts = device.snapshot
        XCTAssertEqual([counts.captureStops, counts.renderStops], [1, 1])

        var released: SharedAudioDevicePort? = hub.makePort()
        try released?.startCapturing(context: ca)
        try released?.startRendering(context: ca)
        released = nil
        counts = device.snapshot
        XCTAssertEqual([counts.captureStops, counts.renderStops], [2, 2], "a released port leaves the hub")
        XCTAssertEqual(hub.capturingPortCount + hub.renderingPortCount, 0)
    }

    func testStartingAPortTwiceFailsLikeAPlainDevice() throws {
        let plain = BufferAudioDevice()
        let context = CollectingAudioContext()
        try plain.startCapturing(context: context)
        var plainError: AudioDeviceError?
        do { try plain.startCapturing(context: context) } catch { plainError = error }
        plain.stopCapturing()
        XCTAssertEqual(plainError?.kind, .alreadyStarted)

        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let port = hub.makePort()
        try port.startCapturing(context: context)
        try port.startRendering(context: context)
        var captureError: AudioDeviceError?
        var renderError: AudioDeviceError?
        do { try port.startCapturing(context: context) } catch { captureError = error }
        do { try port.startRendering(context: context) } catch { renderError = error }
        XCTAssertEqual(captureError?.kind, plainError?.kind)
        XCTAssertEqual(renderError?.kind, plainError?.kind)
        device.capture([1, 2, 3, 4])
        XCTAssertEqual(context.captured, [1, 2, 3, 4], "still subscribed once")
        port.stopCapturing()
        XCTAssertEqual(device.snapshot.captureStops, 1)
    }

    func testAStartErrorReachesThePortAndLeavesItUnsubscribed() throws {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let port = hub.makePort()
        let context = CollectingAudioContext()
        let missing = AudioDeviceError(kind: .openFailed, code: -2, message: "no such device")
        device.state.withLock { $0.startError = missing }
        XCTAssertThrowsError(try port.startCapturing(context: context)) { XCTAssertEqual($0 as? AudioDeviceError, missing) }
        XCTAssertEqual(hub.capturingPortCount, 0)
        XCTAssertFalse(hub.isCapturing)
        try port.startCapturing(context: context)
        device.capture([4, 3, 2, 1])
        XCTAssertEqual(context.captured, [4, 3, 2, 1])
        port.stopCapturing()
        XCTAssertEqual(device.snapshot.captureStops, 1)
    }

    func testEventsReachThePortsOfTheDirectionThatReportedThem() throws {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let both = hub.makePort(), captureOnly = hub.makePort(), renderOnly = hub.makePort()
        let cBoth = CollectingAudioContext(), cCapture = CollectingAudioContext(), cRender = CollectingAudioContext()
        try both.startCapturing(context: cBoth)
        try both.startRendering(context: cBoth)
        try captureOnly.startCapturing(context: cCapture)
        try renderOnly.startRendering(context: cRender)
        device.report(.xrunRecovered(capture: true), capture: true)
        device.report(.xrunRecovered(capture: false), capture: false)
        XCTAssertEqual(cBoth.events, [.xrunRecovered(capture: true), .xrunRecovered(capture: false)])
        XCTAssertEqual(cCapture.events, [.xrunRecovered(capture: true)])
        XCTAssertEqual(cRender.events, [.xrunRecovered(capture: false)])
    }

    func testAFailedDeviceNeverHangsAStopAndTheReopenServesEveryPort() throws {
        let device = ManualAudioDevice()
        let reopen = ManualReopenSchedule()
        let hub = SharedAudioDevice(wrapping: device, reopen: reopen.schedule)
        let a = hub.makePort(), b = hub.makePort(), c = hub.makePort()
        let ca = CollectingAudioContext(), cb = CollectingAudioContext(), cc = CollectingAudioContext()
        try a.startCapturing(context: ca)
        try b.startCapturing(context: cb)
        device.fail(capture: true)
        let interrupted = AudioDeviceEvent.interrupted(capture: true, AudioDeviceError(kind: .ioFailed, message: "unplugged"))
        XCTAssertEqual(ca.events, [interrupted])
        XCTAssertEqual(cb.events, [interrupted])
        a.stopCapturing()  // returns although the device is dead
        XCTAssertEqual(device.snapshot.captureStops, 0, "b still holds it")

        try c.startCapturing(context: cc)
        XCTAssertEqual(cc.events, [interrupted], "a port joining a dead device waits with the others")
        reopen.runPending()
        var counts = device.snapshot
        XCTAssertEqual([counts.captureStops, counts.captureStarts], [1, 2], "the reopen restarts the failed device")
        device.capture([7, 7, 7, 7])
        XCTAssertEqual(cb.captured, [7, 7, 7, 7], "ports that stayed hear the restarted device")
        XCTAssertEqual(cc.captured, [7, 7, 7, 7])
        XCTAssertEqual(ca.captured, [])

        device.fail(capture: true)
        b.stopCapturing()
        c.stopCapturing()
        counts = device.snapshot
        XCTAssertEqual(counts.captureStops, 2)
        XCTAssertFalse(hub.isCapturing)
    }

    func testIsEnabledIsTheUnderlyingDevicesSwitch() {
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort(), b = hub.makePort()
        a.isEnabled = false
        XCTAssertFalse(device.isEnabled)
        XCTAssertFalse(b.isEnabled)
        XCTAssertFalse(hub.isEnabled)
        hub.isEnabled = true
        XCTAssertTrue(device.isEnabled)
        XCTAssertTrue(a.isEnabled)
    }

    func testAPortStoppedFromInsideItsCallbackIsNotCalledAgainAndTheOtherKeepsRunning() throws {
        let device = BufferAudioDevice(captureSamples: [1, 2, 3], loop: true)
        let hub = SharedAudioDevice(wrapping: device)
        let stays = hub.makePort()
        let staying = ConstantAudioContext(value: 0)
        try stays.startCapturing(context: staying)
        let state = try SelfStoppingAudioContext().runUntilStopped(hub.makePort())
        XCTAssertTrue(state.stopped)
        XCTAssertEqual(state.calls, 3)
        XCTAssertEqual(state.callsAfterStop, 0, "no callback after a stop from inside one")
        XCTAssertEqual(hub.capturingPortCount, 1)
        let before = staying.capturedCount
        XCTAssertTrue(PollingWait.until(timeout: 5) { staying.capturedCount > before + 480 * 3 }, "the other port keeps hearing the device")
        stays.stopCapturing()
        XCTAssertFalse(hub.isCapturing, "the last port's stop also clears the self-stopped one and stops the device")
    }

    func testTwoPortsShareABufferDeviceInRealTime() throws {
        let counter = Atomic<Int>(0)
        let device = BufferAudioDevice { buffer in
            for i in buffer.indices { buffer[i] = Int16(truncatingIfNeeded: counter.add(1, ordering: .relaxed).oldValue) }
        }
        let hub = SharedAudioDevice(wrapping: device)
        let a = hub.makePort(), b = hub.makePort()
        let ca = CollectingAudioContext(renderSource: [Int16](repeating: 1_000, count: 480_000))
        let cb = CollectingAudioContext(renderSource: [Int16](repeating: 2_000, count: 480_000))
        try a.startCapturing(context: ca)
        try a.startRendering(context: ca)
        XCTAssertTrue(ca.wait(timeout: 5) { $0.captureCalls >= 3 && $0.renderCalls >= 3 })
        try b.startCapturing(context: cb)
        try b.startRendering(context: cb)
        XCTAssertTrue(cb.wait(timeout: 5) { $0.captureCalls >= 10 && $0.renderCalls >= 10 })
        b.stopCapturing()
        b.stopRendering()
        let (capturesAtStop, rendersAtStop) = (ca.captureCalls, ca.renderCalls)
        XCTAssertTrue(ca.wait(timeout: 5) { $0.captureCalls >= capturesAtStop + 3 && $0.renderCalls >= rendersAtStop + 3 })
        a.stopCapturing()
        a.stopRendering()
        XCTAssertFalse(hub.isCapturing || hub.isRendering)

        // b's captured audio is a run of a's: the same buffers, from when b joined.
        let aCaptured = ca.captured, bCaptured = cb.captured
        XCTAssertGreaterThanOrEqual(bCaptured.count, 4_800)
        let matches = aCaptured.indices.contains { start in
            start + bCaptured.count <= aCaptured.count && aCaptured[start] == bCaptured.first
                && Array(aCaptured[start..<(start + bCaptured.count)]) == bCaptured
        }
        XCTAssertTrue(matches, "b heard exactly what a heard while both ran")

        // Played: a alone, the mix, a alone again (a skipped period would add silence, not other values).
        var runs: [Int16] = []
        for sample in device.recordedSamples where sample != 0 && runs.last != sample { runs.append(sample) }
        XCTAssertEqual(runs, [1_000, 3_000, 1_000])
    }

    func testFanOutAndMixAllocateNothing() throws {
        try XCTSkipUnless(voice_malloc_counter_is_counting() == 1, "a sanitizer build counts no allocations")
        let device = ManualAudioDevice()
        let hub = SharedAudioDevice(wrapping: device)
        let ports = (0..<3).map { _ in hub.makePort() }
        let contexts = [ConstantAudioContext(value: 100), ConstantAudioContext(value: 200), ConstantAudioContext(value: 300)]
        for (port, context) in zip(ports, contexts) {
            try port.startCapturing(context: context)
            try port.startRendering(context: context)
        }
        let input = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 4)
        input.initialize(repeating: 1)
        let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 10)  // more than a period: chunked
        output.initialize(repeating: 0)
        defer {
            input.deallocate()
            output.deallocate()
        }
        device.capture(UnsafeBufferPointer(input))  // warm up
        device.render(into: output)
        voice_malloc_counter_track_current_thread(1)
        let before = voice_malloc_counter_tracked_count()
        for _ in 0..<100 {
            device.capture(UnsafeBufferPointer(input))
            device.render(into: output)
        }
        let after = voice_malloc_counter_tracked_count()
        voice_malloc_counter_track_current_thread(0)
        XCTAssertEqual(after - before, 0, "heap allocations in 100 captured and rendered buffers")
        XCTAssertEqual(Array(output), [Int16](repeating: 600, count: 10))
        XCTAssertEqual(contexts.map(\.capturedTotal), [404, 404, 404])
        XCTAssertEqual(contexts.map(\.renderedCount), [1_010, 1_010, 1_010])
    }
}
