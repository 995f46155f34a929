import VoiceRTP
import VoiceSupport

/// What runs a ``MediaEngine``'s tasks when the engine has no worker threads of its own: the
/// embedded engine of the `VoiceEmbedded` target (virtual time, an in-memory network), as
/// NIO's `EmbeddedEventLoop` stands in for a real loop. The engine hands it its tasks and asks
/// it for the time and the transports; the scheduler calls the tasks (``MediaTask``) on the
/// thread that drives it, in the threaded engine's order: reads, playout passes, ticks.
package protocol MediaTaskScheduler: AnyObject, Sendable {
    /// The engine's time.
    var clock: any MediaClock { get }
    /// Binds the transports of the engine's streams.
    var transports: MediaTransportFactory { get }
    /// The clock software devices on the engine are paced by, ticked in step with the engine.
    var audioClock: SoftwareAudioClock { get }
    /// Ticks done, tasks attached, datagrams read so far.
    var stats: MediaEngineStats { get }
    /// Takes a task: it is called from the next tick on. Returns its id.
    func attach(_ task: MediaTask) -> Int
    /// Lets go of a task: it is not called again.
    func detach(_ id: Int)
    /// Ticks one task at once, at the current time (a stream that stops sends its BYE now).
    func tickNow(_ id: Int)
    /// Runs everything due up to `time`.
    func advance(to time: MediaTime)
}
