import Synchronization

/// Where a call's media thread hands what it sends and plays to a recording, without waiting
/// and without allocating: one lock-free ring per direction, read by the recording's writer
/// thread (``AudioRecording``). What does not fit (the writer fell more than a second behind)
/// is dropped and counted, never waited for.
package final class RecordingTap: Sendable {
    /// What the call sent (the local side, as encoded) and what it played (the far side).
    let sent = AudioRingBuffer(minimumCapacity: 48_000)
    let received = AudioRingBuffer(minimumCapacity: 48_000)
    /// Whether the recording takes the second direction (a room's mix has one).
    let hasTwoDirections: Bool
    /// Samples dropped because a ring was full.
    let droppedSamples = Atomic<Int>(0)

    init(hasTwoDirections: Bool) { self.hasTwoDirections = hasTwoDirections }

    /// The media thread sent `samples` (48 kHz mono).
    package func recordSent(_ samples: UnsafeBufferPointer<Int16>) {
        let written = sent.write(samples)
        if written < samples.count { droppedSamples.add(samples.count - written, ordering: .relaxed) }
    }

    /// The media thread sent `count` samples it has no PCM for (silence, or a frame encoded elsewhere).
    package func recordSentSilence(_ count: Int) {
        let written = sent.writeSilence(count)
        if written < count { droppedSamples.add(count - written, ordering: .relaxed) }
    }

    /// The media thread played `samples` (48 kHz mono).
    package func recordReceived(_ samples: UnsafeBufferPointer<Int16>) {
        guard hasTwoDirections else { return }
        let written = received.write(samples)
        if written < samples.count { droppedSamples.add(samples.count - written, ordering: .relaxed) }
    }
}
