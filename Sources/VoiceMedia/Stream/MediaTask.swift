import VoiceRTP
import VoiceSupport

/// Work the media engine runs: a stream's real-time side. Called only on its worker thread.
protocol MediaTask: AnyObject {
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
}

/// Which streams a playout pass serves.
enum PlayoutPass {
    /// Only those whose device has less than half its usual lead left.
    case urgent
    /// All the others (and any that became urgent meanwhile).
    case remaining
}

struct UncheckedTask: @unchecked Sendable {  // handed once to the worker thread, then used only there
    let task: MediaTask
}

/// Where an attached task lives.
struct MediaTaskHandle: Sendable {
    /// The worker thread running it; nil on an embedded engine.
    let worker: MediaWorker?
    let id: Int
}

