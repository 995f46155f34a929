import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

/// A test ``AudioDeviceContext``: collects captured samples, plays a fixed sequence, records events,
/// and counts any callback that arrives after the test declared the device stopped.
final class CollectingAudioContext: AudioDeviceContext {
    struct State {
        var captured: [Int16] = []
        var captureCalls = 0
        var renderCalls = 0
        var renderedSamples = 0
        var renderSource: [Int16] = []
        var events: [AudioDeviceEvent] = []
        var closed = false
        var callbacksAfterClose = 0
    }
    let state = Locked(State())

    init(renderSource: [Int16] = []) {
        state.withLock { $0.renderSource = renderSource }
    }

    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
        state.withLock { s in
            if s.closed { s.callbacksAfterClose += 1 }
            s.captureCalls += 1
            s.captured.append(contentsOf: samples)
        }
    }

    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
        state.withLock { s in
            if s.closed { s.callbacksAfterClose += 1 }
            s.renderCalls += 1
            for i in samples.indices {
                let k = s.renderedSamples + i
                samples[i] = k < s.renderSource.count ? s.renderSource[k] : 0
            }
            s.renderedSamples += samples.count
        }
    }

    func audioDevice(didReport event: AudioDeviceEvent) {
        state.withLock { $0.events.append(event) }
    }

    /// Marks the device as stopped: any later data callback is counted as a violation.
    func close() { state.withLock { $0.closed = true } }

    var captured: [Int16] { state.withLock { $0.captured } }
    var captureCalls: Int { state.withLock { $0.captureCalls } }
    var renderCalls: Int { state.withLock { $0.renderCalls } }
    var renderedSamples: Int { state.withLock { $0.renderedSamples } }
    var events: [AudioDeviceEvent] { state.withLock { $0.events } }
    var callbacksAfterClose: Int { state.withLock { $0.callbacksAfterClose } }

    /// Polls (real devices run in real time) until `condition` holds or `timeout` passes.
    @discardableResult
    func wait(timeout: Double = 5, until condition: (State) -> Bool) -> Bool {
        let clock = MonotonicMediaClock()
        let end = clock.now() + .seconds(timeout)
        while clock.now() < end {
            if state.withLock({ condition($0) }) { return true }
            usleep(2_000)
        }
        return state.withLock { condition($0) }
    }
}

/// A 16-bit sine tone, for devices to carry.
func testTone(count: Int, frequency: Double = 440, rate: Double = 48_000, amplitude: Double = 12_000) -> [Int16] {
    (0..<count).map { Int16(amplitude * sin(2 * Double.pi * frequency * Double($0) / rate)) }
}

final class AudioDeviceTestContextTests: XCTestCase {
    func testContextPlaysItsSourceThenSilenceAndCountsLateCallbacks() {
        let context = CollectingAudioContext(renderSource: [1, 2, 3])
        var out = [Int16](repeating: 9, count: 5)
        out.withUnsafeMutableBufferPointer { context.readRenderAudio(into: $0) }
        XCTAssertEqual(out, [1, 2, 3, 0, 0])
        context.close()
        [4, 5].withUnsafeBufferPointer { context.deliverCapturedAudio($0) }
        XCTAssertEqual(context.captured, [4, 5])
        XCTAssertEqual(context.callbacksAfterClose, 1)
    }
}

/// A context that stops its device from inside the third capture callback, then counts any further callback.
final class SelfStoppingAudioContext: AudioDeviceContext {
    struct State {
        var device: (any AudioDevice)?
        var calls = 0
        var callsAfterStop = 0
        var stopped = false
    }
    let state = Locked(State())

    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
        let device: (any AudioDevice)? = state.withLock { s in
            if s.stopped { s.callsAfterStop += 1 }
            s.calls += 1
            guard s.calls == 3 else { return nil }
            s.stopped = true
            return s.device
        }
        device?.stopCapturing()  // Must neither deadlock nor call again.
    }

    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) { samples.update(repeating: 0) }
    func audioDevice(didReport event: AudioDeviceEvent) {}

    /// Starts `device` capturing into this context and waits (real time) for it to stop itself.
    func runUntilStopped(_ device: any AudioDevice) throws -> State {
        state.withLock { $0.device = device }
        try device.startCapturing(context: self)
        let clock = MonotonicMediaClock()
        let end = clock.now() + .seconds(1)
        while clock.now() < end, !state.withLock({ $0.stopped }) { usleep(2_000) }
        usleep(50_000)
        return state.withLock { s in
            let snapshot = s
            s.device = nil  // Break the cycle.
            return snapshot
        }
    }
}

/// Names of this process's threads, from /proc.
func currentThreadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
}
