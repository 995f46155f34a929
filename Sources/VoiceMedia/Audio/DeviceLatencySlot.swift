import Synchronization

/// One direction's latest device delay, written by its device thread after each period and read
/// by the echo canceller on the capture thread: an atomic in a class so both can hold it.
final class DeviceLatencySlot: Sendable {
    private let microseconds = Atomic<Int64>(-1)

    /// The delay, or nil while the direction is not running.
    var delay: Duration? {
        let value = microseconds.load(ordering: .relaxed)
        return value >= 0 ? .microseconds(value) : nil
    }

    /// Publishes `frames` of delay at `sampleRate`.
    func store(frames: Int, sampleRate: Int) {
        store(microseconds: Int64(frames) * 1_000_000 / Int64(max(1, sampleRate)))
    }

    /// Publishes a delay in microseconds.
    func store(microseconds value: Int64) {
        microseconds.store(value, ordering: .relaxed)
    }

    /// Marks the direction stopped.
    func clear() { microseconds.store(-1, ordering: .relaxed) }
}
