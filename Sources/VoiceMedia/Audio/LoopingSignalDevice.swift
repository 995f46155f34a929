import VoiceSupport

/// A device that sends a fixed signal over and over and discards what the call plays: the
/// stand-in microphone of a preflight test (Twilio's `fakeMicInput`). The signal is copied once,
/// when the device is made; nothing allocates per buffer.
package final class LoopingSignalDevice: AudioDevice, @unchecked Sendable {
    // @unchecked: `Loop` is read by the capture pump only; the rest is immutable.
    package let format: AudioFormat
    package var captureFormat: AudioFormat? { format }
    package var renderFormat: AudioFormat? { format }
    package var isEnabled: Bool {
        get { device.isEnabled }
        set { device.isEnabled = newValue }
    }

    private let device: SoftwareAudioDevice
    private let loop: Loop

    /// Sends `signal` (in `format`) in a loop; an empty signal sends silence.
    package init(signal: [Int16], format: AudioFormat = .voice, pacing: SoftwareAudioPacing = .realTime) {
        self.format = format
        loop = Loop(signal: signal)
        device = SoftwareAudioDevice(label: "voice-signal", pacing: pacing)
    }

    package func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startCapturing(from: loop, format: format, context: context)
    }

    package func stopCapturing() { device.stopCapturing() }

    package func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startRendering(into: loop, format: format, context: context)
    }

    package func stopRendering() { device.stopRendering() }

    final class Loop: SoftwareCaptureSource, SoftwareRenderSink, @unchecked Sendable {
        private let signal: UnsafeMutableBufferPointer<Int16>
        private var position = 0

        init(signal: [Int16]) {
            self.signal = .allocate(capacity: max(1, signal.count))
            self.signal.initialize(repeating: 0)
            _ = self.signal.initialize(from: signal)
        }

        deinit { signal.deallocate() }

        func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
            for index in buffer.indices {
                buffer[index] = signal[position]
                position = position + 1 == signal.count ? 0 : position + 1
            }
            return true
        }

        func consume(_ buffer: UnsafeBufferPointer<Int16>) {}
    }
}
