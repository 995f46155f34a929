import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import VoiceRTP
import VoiceSupport

/// Runs the real-time side of audio streams: each tick, every attached stream reads what its
/// transports received, plays out, then captures, encodes and sends. The engine's clock and its
/// streams' transports are injected, in one of two ways:
///
/// - **Threaded** (``init(workerCount:tickInterval:onWorkerStart:)``, ``shared``): a fixed pool
///   of threads on the monotonic clock, with UDP sockets. Each worker thread owns the streams
///   attached to it. It sleeps until a periodic `timerfd` tick, then reads whatever packets
///   `epoll` reports on its streams' sockets (each stamped with the kernel's receive time, so
///   batching costs no timing precision), then lets every stream play out, encode and send.
///   Waking per tick rather than per packet keeps the media path's cost close to the codec's. A
///   stream's real-time state is touched only by its worker, so the media path takes no locks;
///   signaling threads talk to streams through atomics and try-locks.
/// - **Scheduled** (``init(scheduler:tickInterval:)``): no thread of its own; a
///   ``MediaTaskScheduler`` runs the tasks. The `VoiceEmbedded` target's embedded engine is one:
///   time is virtual and moves only when the owner calls ``advance(to:)``, which runs each tick
///   that falls due in order, delivering an in-memory network's datagrams and ticking the
///   software audio devices on ``audioClock`` in step, as NIO's `EmbeddedEventLoop` runs its
///   tasks. A minute of call audio with loss, jitter and a network move then takes well under a
///   second, the same way every time.
package final class MediaEngine: Sendable {
    /// A process-wide threaded engine with one worker per core and a 5 ms tick.
    package static let shared = MediaEngine()

    private enum Backend: Sendable {
        case threads([MediaWorker])
        case scheduled(any MediaTaskScheduler)
    }
    private let backend: Backend
    /// The tick period.
    package let tickInterval: MediaTime
    /// Binds the transports of streams on this engine: UDP sockets, or the in-memory network's ports.
    package let transports: MediaTransportFactory
    /// The engine's time: the monotonic clock, or the embedded engine's virtual time.
    package let clock: any MediaClock

    /// Starts `workerCount` worker threads ticking every `tickInterval` on the monotonic clock,
    /// with UDP sockets for transports.
    /// - Parameter onWorkerStart: runs first on each worker thread (thread setup, instrumentation).
    package init(
        workerCount: Int = ProcessInfo.processInfo.activeProcessorCount, tickInterval: MediaTime = .milliseconds(5),
        onWorkerStart: (@Sendable () -> Void)? = nil
    ) {
        self.tickInterval = tickInterval
        self.transports = .udp
        self.clock = MonotonicMediaClock()
        self.backend = .threads(
            (0..<max(1, workerCount)).map {
                MediaWorker(index: $0, tickInterval: tickInterval, onStart: onWorkerStart)
            })
    }

    /// An engine whose tasks `scheduler` runs (the embedded engine: virtual time, no threads).
    package init(scheduler: any MediaTaskScheduler, tickInterval: MediaTime) {
        self.tickInterval = tickInterval
        self.transports = scheduler.transports
        self.clock = scheduler.clock
        self.backend = .scheduled(scheduler)
    }

    /// The scheduler that runs the tasks; nil on a threaded engine.
    package var scheduler: (any MediaTaskScheduler)? {
        if case .scheduled(let scheduler) = backend { return scheduler }
        return nil
    }

    deinit {
        if case .threads(let workers) = backend {
            for w in workers { w.shutdown() }
        }
    }

    /// The clock software devices on a scheduled engine are paced by (`SoftwareAudioPacing.ticked(by:)`),
    /// ticked by ``advance(to:)``; nil on a threaded engine, whose devices use their own.
    package var audioClock: SoftwareAudioClock? { scheduler?.audioClock }

    /// How a stream on this engine hands its events to its handler: on a serial queue of its
    /// own (threaded: the media thread never runs the handler), or at once on the posting
    /// thread (embedded: events arrive within the virtual tick that raised them).
    var eventDelivery: StreamEvents.Delivery {
        switch backend {
        case .threads: return .queue(DispatchQueue(label: "voice-stream-events", target: .global(qos: .userInitiated)))
        case .scheduled: return .inline
        }
    }

    /// Scheduled engines: runs every tick due up to `time` (and the network and devices in step).
    /// Does nothing on a threaded engine.
    package func advance(to time: MediaTime) {
        scheduler?.advance(to: time)
    }

    /// Scheduled engines: ``advance(to:)`` `duration` past the engine's time.
    package func advance(by duration: MediaTime) {
        advance(to: clock.now() + duration)
    }

    /// Engine figures, summed over workers.
    package var stats: MediaEngineStats {
        var s = MediaEngineStats(overruns: 0, maxTickMicroseconds: 0, ticks: 0, tasks: 0)
        switch backend {
        case .threads(let workers):
            for w in workers {
                s.overruns += w.overruns.load(ordering: .relaxed)
                s.ticks += w.ticks.load(ordering: .relaxed)
                s.maxTickMicroseconds = max(s.maxTickMicroseconds, w.maxTickMicroseconds.load(ordering: .relaxed))
                s.tasks += w.taskCount.load(ordering: .relaxed)
                s.datagramsRead += w.datagramsRead.load(ordering: .relaxed)
                s.readBudgetExhausted += w.readBudgetExhausted.load(ordering: .relaxed)
            }
        case .scheduled(let scheduler):
            s = scheduler.stats
        }
        return s
    }

    /// CPU time the worker threads have used so far (user + system): what the media path costs.
    /// Zero on an embedded engine.
    package var cpuTime: MediaTime {
        guard case .threads(let workers) = backend else { return .zero }
        var total: Int64 = 0
        for w in workers {
            let id = w.cpuClock.load(ordering: .acquiring)
            guard id != 0 else { continue }
            var ts = timespec()
            if clock_gettime(clockid_t(id), &ts) == 0 { total += Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec) }
        }
        return MediaTime(nanoseconds: total)
    }

    /// How busy the least busy worker is (0...1: the share of the last half second its ticks
    /// took, preemption included): where the next stream would go. Near 1, streams added now
    /// would make ticks late and audio gap; a server refuses new calls there
    /// (``SIPUserAgentLimits/maximumMediaLoad``). 0 until the workers' first half second, and
    /// on an embedded engine.
    package var load: Double {
        guard case .threads(let workers) = backend else { return 0 }
        return workers.map { Double($0.loadPermille.load(ordering: .relaxed)) / 1_000 }.min() ?? 0
    }

    /// Resets the overrun and max-tick figures.
    package func resetStats() {
        guard case .threads(let workers) = backend else { return }
        for w in workers {
            w.overruns.store(0, ordering: .relaxed)
            w.maxTickMicroseconds.store(0, ordering: .relaxed)
            w.ticks.store(0, ordering: .relaxed)
            w.datagramsRead.store(0, ordering: .relaxed)
            w.readBudgetExhausted.store(0, ordering: .relaxed)
        }
    }

    /// Attaches a task to the least loaded worker; returns when the worker runs it.
    func attach(_ task: MediaTask) -> MediaTaskHandle {
        switch backend {
        case .threads(let workers):
            let worker = workers.min { $0.taskCount.load(ordering: .relaxed) < $1.taskCount.load(ordering: .relaxed) } ?? workers[0]
            let id = worker.enqueue(.attach(UncheckedTask(task: task)))
            return MediaTaskHandle(worker: worker, id: id)
        case .scheduled(let scheduler):
            return MediaTaskHandle(worker: nil, id: scheduler.attach(task))
        }
    }

    /// Scheduled engines: ticks the task at once, at the engine's time (a stream that stops sends
    /// its BYE now, since no thread will tick it while its owner waits). Threaded engines tick
    /// it on their own; this does nothing there.
    func runNow(_ handle: MediaTaskHandle) {
        scheduler?.tickNow(handle.id)
    }

    /// Detaches a task; returns once its worker will never call it again.
    func detach(_ handle: MediaTaskHandle) {
        switch backend {
        case .threads:
            _ = handle.worker?.enqueue(.detach(handle.id))
        case .scheduled(let scheduler):
            scheduler.detach(handle.id)
        }
    }
}
