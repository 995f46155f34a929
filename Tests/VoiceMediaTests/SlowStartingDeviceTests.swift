import VoiceEmbedded
import Foundation
import Synchronization
import VoiceMediaTypes
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceMedia

/// A device that takes its time to start moving audio, as PulseAudio does for a new stream on an
/// idle null sink (about two seconds): the call must not pay for it afterwards. The stream sends
/// silence while capture stands still and plays the peer out on the engine clock while render
/// does, so once the device runs the delay is the jitter buffer's usual one, not the stall's.
final class SlowStartingDeviceTests: XCTestCase {
    /// Wraps a buffer device and starts each direction only after `delay`, on a thread of its own.
    final class SlowStartingDevice: AudioDevice, @unchecked Sendable {
        // @unchecked: `pending` is behind its lock; the rest is immutable.
        let inner: BufferAudioDevice
        let delay: TimeInterval
        private let pending = NSLock()
        private var items: [DispatchWorkItem] = []
        init(inner: BufferAudioDevice, delay: TimeInterval) {
            self.inner = inner
            self.delay = delay
        }
        var captureFormat: AudioFormat? { inner.captureFormat }
        var renderFormat: AudioFormat? { inner.renderFormat }
        var isEnabled: Bool {
            get { inner.isEnabled }
            set { inner.isEnabled = newValue }
        }
        private func later(_ body: @escaping @Sendable () -> Void) {
            let item = DispatchWorkItem(block: body)
            pending.withLock { items.append(item) }
            DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: item)
        }
        func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
            let inner = inner
            later { try? inner.startCapturing(context: context) }
        }
        func stopCapturing() {
            pending.withLock { items.forEach { $0.cancel() } }
            inner.stopCapturing()
        }
        func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
            let inner = inner
            later { try? inner.startRendering(context: context) }
        }
        func stopRendering() {
            pending.withLock { items.forEach { $0.cancel() } }
            inner.stopRendering()
        }
    }

    func testTwoSecondsOfDeviceStartUpLeaveNoDelayAndThePeerKeepsReceiving() throws {
        let signal = TestSignals.multiTone([(440, 5_000), (1_250, 3_000)], seconds: 1)
        let call = try LoopbackCall(signalA: signal, signalB: signal, loop: true)
        let slow = SlowStartingDevice(inner: call.deviceA, delay: 2)
        try call.a.start(remote: call.b.localAddress, audioDevice: slow)
        try call.b.start(remote: call.a.localAddress, audioDevice: call.deviceB)
        defer { call.stop() }

        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertGreaterThan(call.b.stats.packetsReceived, 50, "a sends (silence) while its device starts")
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.deviceA.isRendering })
        Thread.sleep(forTimeInterval: 1.5)
        let stats = call.a.stats
        XCTAssertEqual(stats.captureStalls, 1, "\(stats)")
        XCTAssertEqual(stats.renderStalls, 1)
        XCTAssertLessThan(stats.jitterBuffer.currentDelay.milliseconds, 150, "the stall did not pile up in the jitter buffer")
        XCTAssertGreaterThan(stats.mos, 4, "and is no delay in the call's MOS")
        call.deviceB.clearRecording()
        call.deviceA.clearRecording()
        XCTAssertTrue(PollingWait.until(timeout: 10) { call.deviceB.recordedSamples.count >= 96_000 && call.deviceA.recordedSamples.count >= 96_000 })
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: signal, in: call.deviceB.recordedSamples).score, 0.8)
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: signal, in: call.deviceA.recordedSamples).score, 0.8)
    }
}
