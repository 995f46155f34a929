import Synchronization
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

/// A context that renders one constant value and counts what it captures, without allocating
/// or locking, so it can run inside allocation-counted code.
final class ConstantAudioContext: AudioDeviceContext {
    let value: Int16
    private let captured = Atomic<Int>(0)
    private let capturedSum = Atomic<Int>(0)
    private let rendered = Atomic<Int>(0)

    init(value: Int16) { self.value = value }

    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
        var sum = 0
        for sample in samples { sum += Int(sample) }
        captured.add(samples.count, ordering: .relaxed)
        capturedSum.add(sum, ordering: .relaxed)
    }

    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
        samples.update(repeating: value)
        rendered.add(samples.count, ordering: .relaxed)
    }

    func audioDevice(didReport event: AudioDeviceEvent) {}

    /// Samples captured so far.
    var capturedCount: Int { captured.load(ordering: .relaxed) }
    /// Sum of every captured sample.
    var capturedTotal: Int { capturedSum.load(ordering: .relaxed) }
    /// Samples rendered so far.
    var renderedCount: Int { rendered.load(ordering: .relaxed) }
}
