import VoiceSupport

/// A device that sends back what the call plays: an echo for preflight tests and for checking a
/// line by ear. What is rendered goes into a ring and is captured from it one buffer later (plus
/// ``delay``), so the far end hears itself after the network's round trip and the two jitter
/// buffers.
///
/// Threading: both sides run on the SDK's audio clock thread (or, unpaced, on their own pump
/// threads); the ring has one writer (render) and one reader (capture), allocated when the
/// device is made. Nothing allocates or locks per buffer.
package final class EchoAudioDevice: AudioDevice, @unchecked Sendable {
    // @unchecked: the ring is single-producer single-consumer; the rest is immutable.
    package let format: AudioFormat
    package var captureFormat: AudioFormat? { format }
    package var renderFormat: AudioFormat? { format }
    package var isEnabled: Bool {
        get { device.isEnabled }
        set { device.isEnabled = newValue }
    }

    private let device: SoftwareAudioDevice
    private let loop: Loop

    /// An echo after `delay` (0…2 s) more than one buffer, in `format`, paced by `pacing`.
    package init(format: AudioFormat = .voice, delay: Duration = .zero, pacing: SoftwareAudioPacing = .realTime) {
        self.format = format
        let seconds = min(2, max(0, delay / .seconds(1)))
        let delaySamples = Int(seconds * Double(format.sampleRate * format.channels))
        loop = Loop(delaySamples: delaySamples, capacity: delaySamples + 4 * format.samplesPerBuffer)
        device = SoftwareAudioDevice(label: "voice-echo", pacing: pacing)
    }

    package func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startCapturing(from: loop, format: format, context: context)
    }

    package func stopCapturing() { device.stopCapturing() }

    package func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startRendering(into: loop, format: format, context: context)
    }

    package func stopRendering() { device.stopRendering() }

    /// The ring between the two sides: starts with `delaySamples` of silence; what render
    /// writes beyond its room is dropped, and capture plays silence while it is empty.
    final class Loop: SoftwareCaptureSource, SoftwareRenderSink, @unchecked Sendable {
        let ring: AudioRingBuffer

        init(delaySamples: Int, capacity: Int) {
            ring = AudioRingBuffer(minimumCapacity: capacity)
            _ = ring.writeSilence(delaySamples)
        }

        func consume(_ buffer: UnsafeBufferPointer<Int16>) {
            _ = ring.write(buffer)
        }

        func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
            let read = ring.read(into: buffer)
            if read < buffer.count { UnsafeMutableBufferPointer(rebasing: buffer[read...]).update(repeating: 0) }
            return true
        }
    }
}
