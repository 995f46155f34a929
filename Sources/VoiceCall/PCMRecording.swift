import VoiceSupport

/// What a `PCMAudioDevice` handed the demo, kept in storage reserved up front so the device's
/// pacing thread does not allocate while it appends (beyond `seconds` it would).
final class PCMRecording: Sendable {
    private let storage: Locked<[Int16]>

    init(seconds: Int, sampleRate: Int = 48_000) {
        var samples = [Int16]()
        samples.reserveCapacity(max(0, seconds) * sampleRate)
        storage = Locked(samples)
    }

    /// Appends one buffer (the device's `onAudio`).
    @Sendable func append(_ buffer: UnsafeBufferPointer<Int16>) {
        storage.withLock { $0.append(contentsOf: buffer) }
    }

    /// Everything heard so far.
    var samples: [Int16] { storage.withLock { $0 } }
}
