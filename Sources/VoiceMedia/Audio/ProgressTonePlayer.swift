import Foundation
import VoiceSupport

/// A call-progress tone: one or more frequencies summed, switched on and off in a cadence
/// (ringback: 440 + 480 Hz, 2 s on, 4 s off, in North America).
package struct ProgressTone: Sendable, Hashable {
    /// The frequencies played together, in Hz.
    package var frequencies: [Double]
    /// How long the tone sounds, then how long it is silent, in ms; `off` 0 plays it continuously.
    package var onMilliseconds: Int
    package var offMilliseconds: Int
    /// Peak amplitude of the sum (0…32767).
    package var amplitude: Double

    package init(frequencies: [Double], onMilliseconds: Int, offMilliseconds: Int, amplitude: Double = 6_000) {
        self.frequencies = frequencies
        self.onMilliseconds = max(1, onMilliseconds)
        self.offMilliseconds = max(0, offMilliseconds)
        self.amplitude = amplitude
    }
}

/// Plays a ``ProgressTone`` on the render side of an audio device (a port of a shared device,
/// so it mixes with the calls on it) until stopped.
///
/// Threading: `start` and `stop` from any thread off a loop (starting may open the device);
/// the samples are made on the device's thread with a phase accumulator, allocating nothing.
package final class ProgressTonePlayer: Sendable {
    private let device: any AudioDevice
    private let context: ToneContext
    private let started = Locked(false)

    /// A player of `tone` on `device`; nothing plays until ``start()``.
    package init(tone: ProgressTone, device: any AudioDevice) {
        self.device = device
        self.context = ToneContext(tone: tone, sampleRate: device.renderFormat?.sampleRate ?? 48_000, channels: device.renderFormat?.channels ?? 1)
    }

    deinit { stop() }

    /// Starts playing. Idempotent.
    /// - Throws: what the device throws when it cannot render.
    package func start() throws(AudioDeviceError) {
        try started.withLock { running throws(AudioDeviceError) in
            guard !running, device.renderFormat != nil else { return }
            try device.startRendering(context: context)
            running = true
        }
    }

    /// Stops playing; returns once the device no longer asks for the tone. Idempotent.
    package func stop() {
        let wasRunning = started.withLock { running in
            defer { running = false }
            return running
        }
        if wasRunning { device.stopRendering() }
    }

    /// Whether the tone is playing.
    package var isPlaying: Bool { started.withLock { $0 } }
}

/// Makes the tone's samples for the device thread.
private final class ToneContext: AudioDeviceContext, @unchecked Sendable {
    // @unchecked: the phases and the position are touched only by the one render thread.
    private let steps: [Double]
    private var phases: [Double]
    private let onSamples: Int
    private let periodSamples: Int
    private let channels: Int
    private let amplitude: Double
    private var position = 0

    init(tone: ProgressTone, sampleRate: Int, channels: Int) {
        steps = tone.frequencies.map { 2 * .pi * $0 / Double(sampleRate) }
        phases = Array(repeating: 0, count: tone.frequencies.count)
        onSamples = tone.onMilliseconds * sampleRate / 1_000
        periodSamples = onSamples + tone.offMilliseconds * sampleRate / 1_000
        self.channels = max(1, channels)
        amplitude = tone.amplitude / Double(max(1, tone.frequencies.count))
    }

    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {}

    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
        var frame = 0
        while frame * channels < samples.count {
            var value = 0.0
            let sounding = position % max(1, periodSamples) < onSamples
            for i in phases.indices {
                if sounding { value += sin(phases[i]) }
                phases[i] += steps[i]
                if phases[i] > 2 * .pi { phases[i] -= 2 * .pi }
            }
            let sample = Int16(clamping: Int((value * amplitude).rounded()))
            for c in 0..<channels where frame * channels + c < samples.count { samples[frame * channels + c] = sample }
            position += 1
            frame += 1
        }
    }

    func audioDevice(didReport event: AudioDeviceEvent) {}
}
