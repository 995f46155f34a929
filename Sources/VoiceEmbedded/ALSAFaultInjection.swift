import Synchronization
import VoiceMedia

/// Errors an ``ALSAAudioDevice`` returns in place of libasound's, for the failures a machine
/// without a sound card cannot produce: a busy device (`EBUSY`), an unplugged one (`ENODEV`),
/// a suspend (`ESTRPIPE`), an xrun storm (`EPIPE`). An injected transfer error goes through
/// the same recovery as a real one (`snd_pcm_recover` on the real, open PCM), so only the
/// error's origin is simulated.
///
/// Threading: thread-safe; the device threads read it with atomics only.
package final class ALSAFaultInjection: ALSAFaultSource {
    /// One direction's scripted transfer errors.
    private final class TransferFaults: Sendable {
        let remaining = Atomic<Int>(0)
        let code = Atomic<Int32>(0)
        let every = Atomic<Int>(1)
        let transfers = Atomic<Int>(0)

        func next() -> Int32? {
            guard remaining.load(ordering: .acquiring) > 0 else { return nil }
            let (n, _) = transfers.add(1, ordering: .relaxed)
            guard n % every.load(ordering: .relaxed) == 0 else { return nil }
            let (left, _) = remaining.subtract(1, ordering: .acquiringAndReleasing)
            guard left >= 0 else {
                remaining.store(0, ordering: .relaxed)
                return nil
            }
            return code.load(ordering: .relaxed)
        }
    }

    private let openFailures = Atomic<Int>(0)
    private let openCode = Atomic<Int32>(0)
    private let openAttempts = Atomic<Int>(0)
    private let capture = TransferFaults()
    private let playback = TransferFaults()

    /// Creates a plan that injects nothing.
    package init() {}

    /// The next `times` opens fail with `errno` (positive, e.g. `EBUSY`); `Int.max` until ``clearOpenFailures()``.
    package func failOpens(errno: Int32, times: Int = .max) {
        openCode.store(-abs(errno), ordering: .relaxed)
        openFailures.store(times, ordering: .releasing)
    }

    /// Opens succeed again (the device is back).
    package func clearOpenFailures() { openFailures.store(0, ordering: .releasing) }

    /// `count` transfers of the direction fail with `errno`, one in every `every` transfers.
    package func failTransfers(errno: Int32, count: Int, every: Int = 1, capture: Bool) {
        let faults = capture ? self.capture : playback
        faults.every.store(max(1, every), ordering: .relaxed)
        faults.transfers.store(0, ordering: .relaxed)
        faults.code.store(-abs(errno), ordering: .relaxed)
        faults.remaining.store(count, ordering: .releasing)
    }

    /// Opens attempted so far, failed or not.
    package var opens: Int { openAttempts.load(ordering: .relaxed) }

    /// Scripted transfer errors not returned yet, for the direction.
    package func pendingTransferFaults(capture: Bool) -> Int {
        max(0, (capture ? self.capture : playback).remaining.load(ordering: .relaxed))
    }

    /// The negative errno the next open must fail with, if any.
    package func nextOpenFault() -> Int32? {
        openAttempts.add(1, ordering: .relaxed)
        guard openFailures.load(ordering: .acquiring) > 0 else { return nil }
        let (left, _) = openFailures.subtract(1, ordering: .acquiringAndReleasing)
        guard left >= 0 else {
            openFailures.store(0, ordering: .relaxed)
            return nil
        }
        return openCode.load(ordering: .relaxed)
    }

    /// The negative errno this transfer must fail with, if any.
    package func nextTransferFault(capture: Bool) -> Int32? { (capture ? self.capture : playback).next() }
}
