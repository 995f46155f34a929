import Synchronization
import VoiceSupport

/// A device a bot or a service exchanges raw PCM with: what it ``play(_:)``s is what the call
/// sends, and what the call plays is handed to `onAudio`, buffer by buffer.
///
/// Samples are 16-bit, interleaved, in ``format`` (48 kHz mono by default). While nothing is
/// queued the call sends silence. Paced in real time by default, like a sound card.
///
/// Threading: ``play(_:)`` and ``stopPlaying()`` may be called from any thread. `onAudio` runs
/// on the SDK's audio clock thread, which paces every software device of the process, once per
/// buffer (10 ms by default): it must return quickly and must not block (hand the samples to a
/// queue of your own), or every such device runs late. The clock thread takes no lock that
/// ``play(_:)`` holds: queued samples sit in a lock-free ring allocated when the device is made.
public final class PCMAudioDevice: AudioDevice, @unchecked Sendable {
    // @unchecked: the ring has one writer (callers of play, serialised by `writer`) and one
    // reader (the capture pump); everything else is immutable or atomic.

    /// Receives one buffer of the call's audio. Called on the pacing thread.
    public typealias AudioHandler = @Sendable (UnsafeBufferPointer<Int16>) -> Void

    /// The format of both directions.
    public let format: AudioFormat
    /// The format of the samples ``play(_:)`` takes.
    public var captureFormat: AudioFormat? { format }
    /// The format of the buffers `onAudio` receives.
    public var renderFormat: AudioFormat? { format }
    /// When false, the call sends silence and `onAudio` receives silence; queued samples wait.
    public var isEnabled: Bool {
        get { device.isEnabled }
        set { device.isEnabled = newValue }
    }

    private let device: SoftwareAudioDevice
    private let queue: Queue
    private let sink: Sink
    private let writer = Mutex(())
    /// The most samples ``play(_:)`` queues ahead of what was sent.
    private let maximumQueuedSamples: Int

    /// Creates a device.
    /// - Parameters:
    ///   - format: The format of both directions.
    ///   - maximumQueued: How much audio ``play(_:)`` may queue ahead of what was sent (at most
    ///     10 minutes). The queue's memory is reserved when the device is made: 20 s of 48 kHz
    ///     mono is about 4 MB.
    ///   - pacing: How buffers are timed: in real time (the default) or as fast as the call takes them.
    ///   - onAudio: Receives what the call plays, one buffer at a time, on the pacing thread.
    public init(
        format: AudioFormat = .voice, maximumQueued: Duration = .seconds(20), pacing: SoftwareAudioPacing = .realTime,
        onAudio: @escaping AudioHandler = { _ in }
    ) {
        self.format = format
        let seconds = min(600, max(0, maximumQueued / .seconds(1)))
        let samples = max(format.samplesPerBuffer, Int((seconds * Double(format.sampleRate * format.channels)).rounded(.up)))
        maximumQueuedSamples = samples
        // Room for a full queue that was just dropped (the clock thread discards it on its next
        // buffer) and a full queue played after it.
        queue = Queue(ring: AudioRingBuffer(minimumCapacity: 2 * samples))
        sink = Sink(onAudio: onAudio)
        device = SoftwareAudioDevice(label: "voice-pcm", pacing: pacing)
    }

    /// Queues `samples` to be sent after what is already queued. Returns how many were queued:
    /// fewer than given when the queue is full (the rest is not sent).
    @discardableResult
    public func play(_ samples: [Int16]) -> Int {
        writer.withLock { _ in
            let room = max(0, maximumQueuedSamples - queuedSamples)
            return samples.withUnsafeBufferPointer { all in
                queue.ring.write(UnsafeBufferPointer(rebasing: all.prefix(room)))
            }
        }
    }

    /// How many samples are queued and not yet sent.
    public var queuedSamples: Int {
        max(0, queue.ring.writePosition - max(queue.ring.readPosition, queue.flushTarget))
    }

    /// Drops what is queued: the call sends silence from its next buffer (barge-in).
    public func stopPlaying() {
        writer.withLock { _ in queue.requestFlush() }
    }

    /// Starts sending queued samples to `context`.
    public func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startCapturing(from: queue, format: format, context: context)
    }

    /// Stops sending; no capture callback runs after it returns. Idempotent.
    public func stopCapturing() { device.stopCapturing() }

    /// Starts handing the call's audio to `onAudio`.
    public func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        try device.startRendering(into: sink, format: format, context: context)
    }

    /// Stops rendering; `onAudio` is not called after it returns. Idempotent.
    public func stopRendering() { device.stopRendering() }

    /// The queued samples: written by `play`, read by the capture pump.
    final class Queue: SoftwareCaptureSource, @unchecked Sendable {
        let ring: AudioRingBuffer
        /// The ring position up to which queued samples are dropped (set by `stopPlaying`).
        private let flush = Atomic<Int>(0)
        init(ring: AudioRingBuffer) { self.ring = ring }

        var flushTarget: Int { flush.load(ordering: .acquiring) }

        /// Drops everything written so far. Called by the writer.
        func requestFlush() { flush.store(ring.writePosition, ordering: .releasing) }

        func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
            let behind = flush.load(ordering: .acquiring) - ring.readPosition
            if behind > 0 { ring.discard(behind) }
            let read = ring.read(into: buffer)
            if read < buffer.count { UnsafeMutableBufferPointer(rebasing: buffer[read...]).update(repeating: 0) }
            return true
        }
    }

    /// Hands rendered buffers to the app.
    final class Sink: SoftwareRenderSink, Sendable {
        let onAudio: AudioHandler
        init(onAudio: @escaping AudioHandler) { self.onAudio = onAudio }
        func consume(_ buffer: UnsafeBufferPointer<Int16>) { onAudio(buffer) }
    }
}
