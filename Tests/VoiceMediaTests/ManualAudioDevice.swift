@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

/// A device the test drives by hand: it keeps the context of each direction, counts starts and
/// stops, and moves audio (synchronously, on the calling thread) only when told to.
final class ManualAudioDevice: AudioDevice, Sendable {
    struct State {
        var captureContext: (any AudioDeviceContext)?
        var renderContext: (any AudioDeviceContext)?
        var captureStarts = 0
        var captureStops = 0
        var renderStarts = 0
        var renderStops = 0
        var enabled = true
        /// Thrown by the next start.
        var startError: AudioDeviceError?
        /// Set by ``fail(capture:)``: the direction reported a failure and no longer runs, as an ALSA thread ends.
        var captureDead = false
        var renderDead = false
    }
    let format: AudioFormat
    let state = Locked(State())

    init(format: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: 4)) {
        self.format = format
    }

    var captureFormat: AudioFormat? { format }
    var renderFormat: AudioFormat? { format }
    var isEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            if let error = s.startError {
                s.startError = nil
                throw error
            }
            guard s.captureContext == nil else { throw AudioDeviceError(kind: .alreadyStarted, message: "manual capture already started") }
            s.captureContext = context
            s.captureStarts += 1
        }
    }

    func stopCapturing() {
        state.withLock { s in
            guard s.captureContext != nil else { return }
            s.captureContext = nil
            s.captureDead = false
            s.captureStops += 1
        }
    }

    func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            if let error = s.startError {
                s.startError = nil
                throw error
            }
            guard s.renderContext == nil else { throw AudioDeviceError(kind: .alreadyStarted, message: "manual render already started") }
            s.renderContext = context
            s.renderStarts += 1
        }
    }

    func stopRendering() {
        state.withLock { s in
            guard s.renderContext != nil else { return }
            s.renderContext = nil
            s.renderDead = false
            s.renderStops += 1
        }
    }

    // MARK: - Driving

    /// Delivers `samples` as one captured buffer, if capturing.
    func capture(_ samples: UnsafeBufferPointer<Int16>) {
        let context = state.withLock { $0.captureDead ? nil : $0.captureContext }
        context?.deliverCapturedAudio(samples)
    }

    /// Delivers `samples` as one captured buffer, if capturing.
    func capture(_ samples: [Int16]) { samples.withUnsafeBufferPointer { capture($0) } }

    /// Pulls one render buffer into `samples` (left untouched when not rendering).
    func render(into samples: UnsafeMutableBufferPointer<Int16>) {
        let context = state.withLock { $0.renderDead ? nil : $0.renderContext }
        context?.readRenderAudio(into: samples)
    }

    /// Pulls `count` samples; 7777 marks samples nothing wrote.
    func render(count: Int) -> [Int16] {
        var out = [Int16](repeating: 7_777, count: count)
        out.withUnsafeMutableBufferPointer { render(into: $0) }
        return out
    }

    /// Reports `event` to the context of one direction.
    func report(_ event: AudioDeviceEvent, capture: Bool) {
        let context = state.withLock { capture ? $0.captureContext : $0.renderContext }
        context?.audioDevice(didReport: event)
    }

    /// Reports a failure on one direction, which then stays dead until stopped.
    func fail(capture: Bool) {
        report(.failed(AudioDeviceError(kind: .ioFailed, message: "unplugged")), capture: capture)
        state.withLock { s in
            if capture { s.captureDead = true } else { s.renderDead = true }
        }
    }

    var snapshot: State { state.withLock { $0 } }
}
