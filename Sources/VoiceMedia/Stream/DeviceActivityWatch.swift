import VoiceSupport

/// Tells, on the media thread's clock, whether one direction of an audio device has stopped
/// moving audio: its count of delivered (or pulled) buffers has not changed for longer than
/// ``threshold``. A sound server that starts up slowly (PulseAudio's null sink holds a new
/// stream for up to two seconds) or a device thread starved of CPU looks like this; the stream
/// then keeps the call's timeline on the engine clock (silence sent, frames played out and
/// dropped) instead of letting the delay pile up in the jitter buffer or the capture ring.
///
/// A pure value: the media thread feeds it the counter and the time.
struct DeviceActivityWatch: Sendable, Hashable {
    /// How long the count may stand still before the direction counts as stalled: four
    /// 10–20 ms device periods and a margin for scheduling, well below any real stall.
    static let threshold = MediaTime.milliseconds(100)

    private var lastCount: UInt64 = 0
    private var lastChange: MediaTime?
    /// Stalls seen so far (the direction stood still, then moved again or not).
    private(set) var stalls = 0
    private var stalled = false

    /// Whether the direction has been still for longer than ``threshold`` at `now`, given its
    /// `count` of buffers moved so far. The first call starts the clock.
    mutating func isStalled(count: UInt64, now: MediaTime) -> Bool {
        guard let last = lastChange, count == lastCount else {
            lastCount = count
            lastChange = now
            stalled = false
            return false
        }
        let still = now - last > Self.threshold
        if still, !stalled { stalls += 1 }
        stalled = still
        return still
    }

    /// Starts over (another device, or a stream that resumes after an interruption).
    mutating func reset() { self = DeviceActivityWatch() }
}
