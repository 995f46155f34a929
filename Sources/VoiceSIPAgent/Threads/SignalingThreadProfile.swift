#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import NIOCore

/// How the SDK asks the kernel to schedule a signaling event loop's thread: promptly when it
/// wakes, without giving it more of the CPU.
///
/// A SIP loop is light (a few percent of a core) and latency-bound: its timers (retransmissions,
/// the 1 ms turns of queued work) are late by however long it waits for a core. Next to busy
/// media workers on a small machine that wait is the scheduler's, up to a whole tick (4 ms at
/// `HZ=250`), however little the loop itself runs. Two requests shorten it:
/// - a short scheduler slice (``slice``; Linux 6.12+ EEVDF, no privilege needed): the thread's
///   virtual deadline comes sooner, so a wake-up preempts a thread that has run longer;
/// - a nice value of ``nice`` (−5) where the process may lower it (`CAP_SYS_NICE`, or an
///   `RLIMIT_NICE` such as systemd's `LimitNICE=`): its wake-ups are not held back by the lag
///   left from its last burst of work. Because the loop uses little CPU, this costs the media
///   threads next to nothing.
///
/// Each request that the kernel refuses is skipped: the thread runs as it was.
package struct SignalingThreadProfile: Sendable, Hashable {
    /// The nice value asked for.
    package static let nice: Int32 = -5
    /// The scheduler slice asked for.
    package static let slice = TimeAmount.microseconds(100)

    /// The thread now runs with the short slice.
    package var hasShortSlice: Bool
    /// The thread's nice value now.
    package var niceValue: Int32

    /// How the calling thread runs now.
    package static var current: SignalingThreadProfile {
        SignalingThreadProfile(hasShortSlice: voice_thread_slice() == UInt64(slice.nanoseconds), niceValue: voice_thread_nice())
    }

    /// Applies the profile to the calling thread and says what took effect.
    package static func applyToCurrentThread() -> SignalingThreadProfile {
        // The nice value first: setting the slice keeps whatever nice value the thread has then.
        if voice_thread_nice() > nice { _ = voice_set_thread_nice(nice) }
        _ = voice_set_thread_slice(UInt64(slice.nanoseconds))
        return current
    }

    /// Applies the profile to every thread of `group`, each on its own loop; the future has what
    /// took effect on each.
    package static func apply(to group: any EventLoopGroup) -> EventLoopFuture<[SignalingThreadProfile]> {
        let loops = Array(group.makeIterator())
        let results = loops.map { $0.submit { applyToCurrentThread() } }
        return EventLoopFuture.whenAllSucceed(results, on: loops[0])
    }
}
