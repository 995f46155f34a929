import VoiceRTP
import VoiceSupport

/// Work the media engine runs: a stream's real-time side. Called only on its worker thread
/// (or, on an engine with a ``MediaTaskScheduler``, on the thread that drives the scheduler).
package protocol MediaTask: AnyObject {
    /// The transports whose datagrams the task takes; those with a readiness descriptor wake
    /// the worker, the others are read every tick.
    var transports: [any MediaTransport] { get }
    /// Reads one datagram from `transports[transportIndex]`, and says whether there was one.
    /// `now` is the tick time; `wallClockOffset` (wall clock minus media time) converts a
    /// kernel receive stamp.
    func receive(from transportIndex: Int, now: MediaTime, wallClockOffset: Int64) -> Bool
    /// The first passes of each tick: keep audio flowing to the device (decode, conceal, play
    /// out). They run for every task before any task's ``tick(now:)``, because a device that
    /// finds no audio is a late frame, while a packet encoded a millisecond later is not; and
    /// the ``PlayoutPass/urgent`` pass runs for every task before the ``PlayoutPass/remaining``
    /// one, so on a loaded worker the streams whose device is about to run dry come first.
    func playoutTick(now: MediaTime, pass: PlayoutPass)
    /// The second pass of each tick: encode and send, RTCP, housekeeping.
    func tick(now: MediaTime)
    /// Whether the task's datagrams should be read as soon as they arrive rather than at the
    /// next tick: while a handshake runs (ICE checks, DTLS flights), each answer sent at once
    /// saves the peer up to a tick per round trip. Media itself is read per tick. Read by the
    /// worker after each tick and each prompt read.
    var wantsPromptReceive: Bool { get }
    /// The task is now the worker's: it may send at once what it would send at its first tick
    /// (a handshake's first message), rather than wait up to a tick for it.
    func attached(now: MediaTime)
}

extension MediaTask {
    package var wantsPromptReceive: Bool { false }
    package func attached(now: MediaTime) {}
}

/// Which streams a playout pass serves.
package enum PlayoutPass {
    /// Only those whose device has less than half its usual lead left.
    case urgent
    /// All the others (and any that became urgent meanwhile).
    case remaining
}

package struct UncheckedTask: @unchecked Sendable {  // handed once to the worker thread, then used only there
    package let task: MediaTask

    package init(task: MediaTask) { self.task = task }
}

/// Where an attached task lives.
struct MediaTaskHandle: Sendable {
    /// The worker thread running it; nil on an embedded engine.
    let worker: MediaWorker?
    let id: Int
}

