@testable import VoiceMedia
import VoiceSupport

/// A manual software audio clock that a test ticks: each tick is one 10 ms buffer each way
/// for the devices it paces, counted exactly.
final class ManualAudioTicker {
    let clock: SoftwareAudioClock
    private var ticks = 0

    init(name: String) { clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: name) }

    /// Pacing for a device this clock drives.
    var pacing: SoftwareAudioPacing { .ticked(by: clock) }

    /// `count` more ticks.
    func tick(_ count: Int) {
        for _ in 0..<count {
            clock.tick(at: .milliseconds(Int64(10 * ticks)))
            ticks += 1
        }
    }
}
