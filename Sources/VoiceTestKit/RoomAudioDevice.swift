import VoiceMedia
import VoiceTestAudio
import VoiceSupport

/// A loudspeaker and a microphone in a simulated room (``EchoRoom``'s sparse taps), for calls
/// that must meet their own echo: what the device plays comes back into what it captures, late
/// and attenuated, added to a near-end talker (`near`, looped) and a noise floor.
///
/// It is a ``BufferAudioDevice`` underneath (same pacing: real time or a virtual clock), whose
/// capture is produced from the echo line and whose render context is tapped into it. Like a
/// real microphone and speaker its default processing is everything on.
///
/// Threading: thread-safe; the echo line is behind a mutex held for one period's arithmetic (a
/// test device: the SDK's own real-time path takes no such lock).
package final class RoomAudioDevice: AudioDevice, Sendable {
    private let inner: BufferAudioDevice
    private let line: EchoLine

    /// A room device: `near` is the talker in the room (looped; empty for nobody), `noise` the
    /// microphone's floor in dBFS.
    package init(room: EchoRoom = EchoRoom(), near: [Int16] = [], noise: Double = -70, pacing: SoftwareAudioPacing = .realTime) {
        let line = EchoLine(taps: room.sparseTaps(), near: near, noise: RoomSignals.mix(RoomSignals.whiteNoise(count: 48_000, level: noise, seed: 23)))
        self.line = line
        self.inner = BufferAudioDevice(pacing: pacing) { buffer in line.capture(into: buffer) }
    }

    package var captureFormat: AudioFormat? { inner.captureFormat }
    package var renderFormat: AudioFormat? { inner.renderFormat }
    package var isEnabled: Bool {
        get { inner.isEnabled }
        set { inner.isEnabled = newValue }
    }
    package var defaultAudioProcessing: AudioProcessingOptions { .all }
    /// What the speaker played so far.
    package var playedSamples: [Int16] { inner.recordedSamples }

    package func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try inner.startCapturing(context: context)
    }

    package func stopCapturing() { inner.stopCapturing() }

    package func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try inner.startRendering(context: Tap(context: context, line: line))
    }

    package func stopRendering() { inner.stopRendering() }

    /// Passes the render audio on and into the echo line.
    private final class Tap: AudioDeviceContext, Sendable {
        let context: any AudioDeviceContext
        let line: EchoLine
        init(context: any AudioDeviceContext, line: EchoLine) {
            self.context = context
            self.line = line
        }
        func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) { context.deliverCapturedAudio(samples) }
        func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
            context.readRenderAudio(into: samples)
            line.played(UnsafeBufferPointer(samples))
        }
        func audioDevice(didReport event: AudioDeviceEvent) { context.audioDevice(didReport: event) }
    }

    /// The played samples of the last second, and the capture position in them.
    private final class EchoLine: Sendable {
        private struct State {
            var ring = [Double](repeating: 0, count: 48_000)
            /// Samples played so far.
            var played = 0
            /// Samples captured so far.
            var captured = 0
            var nearPosition = 0
        }
        private let state = Locked(State())
        private let taps: [(delay: Int, gain: Double)]
        private let near: [Int16]
        private let noise: [Int16]

        init(taps: [(delay: Int, gain: Double)], near: [Int16], noise: [Int16]) {
            self.taps = taps.filter { $0.delay < 48_000 }
            self.near = near
            self.noise = noise
        }

        func played(_ samples: UnsafeBufferPointer<Int16>) {
            state.withLock { s in
                for sample in samples {
                    s.ring[s.played % s.ring.count] = Double(sample)
                    s.played += 1
                }
            }
        }

        func capture(into buffer: UnsafeMutableBufferPointer<Int16>) {
            state.withLock { s in
                for i in buffer.indices {
                    let t = s.captured
                    var value = Double(noise.isEmpty ? 0 : noise[t % noise.count])
                    if !near.isEmpty {
                        value += Double(near[s.nearPosition])
                        s.nearPosition = (s.nearPosition + 1) % near.count
                    }
                    for tap in taps {
                        let source = t - tap.delay
                        // Only what was played and is still in the ring (the render side may lag a period).
                        if source >= 0, source < s.played, s.played - source <= s.ring.count {
                            value += tap.gain * s.ring[source % s.ring.count]
                        }
                    }
                    buffer[i] = Int16(clamping: Int(value.rounded()))
                    s.captured += 1
                }
            }
        }
    }
}
