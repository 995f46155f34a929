import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import CVoiceSys
import VoiceSupport

/// Work the media engine runs: a stream's real-time side. Called only on its worker thread.
protocol MediaTask: AnyObject {
    /// Sockets whose readability wakes the worker.
    var descriptors: [Int32] { get }
    /// A watched socket (index into ``descriptors``) is readable: read one datagram, and say
    /// whether there was one. `now` is the tick time; `wallToMonotonic` converts the kernel's
    /// wall-clock receive stamp to `MediaTime`.
    func readable(descriptorIndex: Int, now: MediaTime, wallToMonotonic: Int64) -> Bool
    /// The first pass of each tick: keep audio flowing to the device (decode, conceal, play out).
    /// It runs for every task before any task's ``tick(now:)``, because a device that finds no
    /// audio is a late frame, while a packet encoded a millisecond later is not.
    func playoutTick(now: MediaTime)
    /// The second pass of each tick: encode and send, RTCP, housekeeping.
    func tick(now: MediaTime)
}

/// Figures about the engine's real-time behaviour.
package struct MediaEngineStats: Sendable, Hashable {
    /// Ticks whose work ended after the next tick was due, summed over workers.
    package var overruns: Int
    /// The longest time one tick's work took, in microseconds.
    package var maxTickMicroseconds: Int
    /// Ticks run, summed over workers.
    package var ticks: Int
    /// Tasks (stream endpoints) attached.
    package var tasks: Int
    /// Datagrams read from the streams' sockets, summed over workers.
    package var datagramsRead: Int = 0
    /// Ticks whose read budget ran out with datagrams still queued: a flood the engine could
    /// not read in full (the kernel dropped the rest).
    package var readBudgetExhausted: Int = 0
}

/// Runs the real-time side of audio streams on a fixed pool of threads.
///
/// Each worker thread owns the streams attached to it. It sleeps until a periodic `timerfd`
/// tick, then reads whatever packets `epoll` reports on its streams' sockets (each stamped with
/// the kernel's receive time, so batching costs no timing precision), then lets every stream
/// encode, send and play out. Waking per tick rather than per packet keeps the media path's
/// cost close to the codec's. A stream's real-time state is touched only by its worker, so the media path
/// takes no locks; signaling threads talk to streams through atomics and try-locks.
package final class MediaEngine: Sendable {
    /// A process-wide engine with one worker per core and a 5 ms tick.
    package static let shared = MediaEngine()

    private let workers: [MediaWorker]
    /// The tick period.
    package let tickInterval: MediaTime

    /// Starts `workerCount` worker threads ticking every `tickInterval`.
    /// - Parameter onWorkerStart: runs first on each worker thread (thread setup, instrumentation).
    package init(
        workerCount: Int = ProcessInfo.processInfo.activeProcessorCount, tickInterval: MediaTime = .milliseconds(5),
        onWorkerStart: (@Sendable () -> Void)? = nil
    ) {
        self.tickInterval = tickInterval
        self.workers = (0..<max(1, workerCount)).map {
            MediaWorker(index: $0, tickInterval: tickInterval, onStart: onWorkerStart)
        }
    }

    deinit {
        for w in workers { w.shutdown() }
    }

    /// Engine figures, summed over workers.
    package var stats: MediaEngineStats {
        var s = MediaEngineStats(overruns: 0, maxTickMicroseconds: 0, ticks: 0, tasks: 0)
        for w in workers {
            s.overruns += w.overruns.load(ordering: .relaxed)
            s.ticks += w.ticks.load(ordering: .relaxed)
            s.maxTickMicroseconds = max(s.maxTickMicroseconds, w.maxTickMicroseconds.load(ordering: .relaxed))
            s.tasks += w.taskCount.load(ordering: .relaxed)
            s.datagramsRead += w.datagramsRead.load(ordering: .relaxed)
            s.readBudgetExhausted += w.readBudgetExhausted.load(ordering: .relaxed)
        }
        return s
    }

    /// CPU time the worker threads have used so far (user + system): what the media path costs.
    package var cpuTime: MediaTime {
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
    /// (``SIPUserAgentLimits/maximumMediaLoad``). 0 until the workers' first half second.
    package var load: Double {
        workers.map { Double($0.loadPermille.load(ordering: .relaxed)) / 1_000 }.min() ?? 0
    }

    /// Resets the overrun and max-tick figures.
    package func resetStats() {
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
        let worker = workers.min { $0.taskCount.load(ordering: .relaxed) < $1.taskCount.load(ordering: .relaxed) } ?? workers[0]
        let id = worker.enqueue(.attach(UncheckedTask(task: task)))
        return MediaTaskHandle(worker: worker, id: id)
    }

    /// Detaches a task; returns once its worker will never call it again.
    func detach(_ handle: MediaTaskHandle) {
        _ = handle.worker.enqueue(.detach(handle.id))
    }
}

struct UncheckedTask: @unchecked Sendable {  // handed once to the worker thread, then used only there
    let task: MediaTask
}

/// Where an attached task lives.
struct MediaTaskHandle: Sendable {
    let worker: MediaWorker
    let id: Int
}

final class MediaWorker: Sendable {
    enum Command: Sendable {
        case attach(UncheckedTask)
        case detach(Int)
        case shutdown
    }

    let overruns = Atomic<Int>(0)
    let ticks = Atomic<Int>(0)
    let maxTickMicroseconds = Atomic<Int>(0)
    let taskCount = Atomic<Int>(0)
    let datagramsRead = Atomic<Int>(0)
    let readBudgetExhausted = Atomic<Int>(0)
    /// The worker's load (``MediaLoadMeter``) in thousandths.
    let loadPermille = Atomic<Int>(0)
    /// The worker thread's CPU-time clock id (0 until the thread has started).
    let cpuClock = Atomic<Int32>(0)
    private let nextID = Atomic<Int>(1)
    private let pending = Locked<[(Int, Command, DispatchSemaphore)]>([])
    private let epfd: Int32
    private let socketEpfd: Int32
    private let eventfd: Int32
    private let timerfd: Int32

    init(index: Int, tickInterval: MediaTime, onStart: (@Sendable () -> Void)?) {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        socketEpfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        eventfd = CVoiceSys.eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        let timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        timerfd = timer
        var spec = itimerspec()
        spec.it_interval.tv_sec = Int(tickInterval.nanoseconds / 1_000_000_000)
        spec.it_interval.tv_nsec = Int(tickInterval.nanoseconds % 1_000_000_000)
        spec.it_value = spec.it_interval
        timerfd_settime(timer, 0, &spec, nil)
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.u64 = UInt64.max
        epoll_ctl(epfd, EPOLL_CTL_ADD, timer, &ev)
        ev.data.u64 = UInt64.max - 1
        epoll_ctl(epfd, EPOLL_CTL_ADD, eventfd, &ev)
        let context = WorkerLoop(
            epfd: epfd, socketEpfd: socketEpfd, timerfd: timer, eventfd: eventfd,
            interval: tickInterval, worker: self)
        let name = "voice-media-\(index)"
        let thread = Thread { [self] in
            // Set from the thread itself: on Linux, only that reaches the OS (top, perf, gdb).
            Thread.current.name = name
            var clock = clockid_t()
            if pthread_getcpuclockid(pthread_self(), &clock) == 0 { cpuClock.store(Int32(clock), ordering: .releasing) }
            onStart?()
            context.run()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Ends the worker thread and closes its descriptors. Called once, by the engine's deinit.
    func shutdown() {
        _ = enqueue(.shutdown)
        close(epfd)
        close(socketEpfd)
        close(eventfd)
        close(timerfd)
    }

    /// Queues a command, wakes the worker, and waits until it has been applied.
    func enqueue(_ command: Command) -> Int {
        let id: Int
        switch command {
        case .detach(let existing): id = existing
        case .attach: id = nextID.add(1, ordering: .relaxed).oldValue
        case .shutdown: id = 0
        }
        let done = DispatchSemaphore(value: 0)
        pending.withLock { $0.append((id, command, done)) }
        var one: UInt64 = 1
        _ = write(eventfd, &one, 8)
        done.wait()
        return id
    }

    /// Takes queued commands without ever blocking the worker on the lock.
    func takePending() -> [(Int, Command, DispatchSemaphore)]? {
        pending.withLockIfAvailable { list -> [(Int, Command, DispatchSemaphore)]? in
            if list.isEmpty { return nil }
            let taken = list
            list.removeAll(keepingCapacity: true)
            return taken
        } ?? nil
    }
}

/// The worker thread's own state: only its thread touches it.
private final class WorkerLoop: @unchecked Sendable {
    struct Entry {
        let id: Int
        let task: MediaTask
        let fds: [Int32]
    }
    let epfd: Int32
    let socketEpfd: Int32
    let timerfd: Int32
    let eventfd: Int32
    let interval: MediaTime
    let worker: MediaWorker  // the engine shuts the loop down before it lets go of the worker
    var entries: [Int: Entry] = [:]
    var tickOrder: [MediaTask] = []
    var stopped = false
    var loadMeter = MediaLoadMeter()
    let clock = MonotonicMediaClock()

    init(epfd: Int32, socketEpfd: Int32, timerfd: Int32, eventfd: Int32, interval: MediaTime, worker: MediaWorker) {
        self.epfd = epfd
        self.socketEpfd = socketEpfd
        self.timerfd = timerfd
        self.eventfd = eventfd
        self.interval = interval
        self.worker = worker
    }

    func run() {
        let maxEvents = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: maxEvents)
        defer { events.deallocate() }
        var scratch: UInt64 = 0
        while !stopped {
            let n = epoll_wait(epfd, events, Int32(maxEvents), -1)
            if n < 0 { continue }  // EINTR
            let now = clock.now()
            var tickDue = false
            var i = 0
            while i < Int(n) {
                let key = events[i].data.u64
                if key == UInt64.max {
                    _ = read(timerfd, &scratch, 8)
                    tickDue = true
                } else {
                    _ = read(eventfd, &scratch, 8)
                    applyCommands()
                }
                i += 1
            }
            if tickDue {
                receivePending(now: now, events: events, capacity: maxEvents)
                runTick(now: now, expirations: scratch)
            }
        }
    }

    /// Datagrams read from one socket before the next readable socket gets its turn.
    static let datagramsPerTurn = 64

    /// Drains every socket epoll reports readable, taking turns of up to ``datagramsPerTurn``
    /// datagrams per socket, until none is readable or the read budget (half a tick) is spent.
    /// The budget follows what is queued rather than a fixed count, so a junk flood at one port
    /// costs CPU but neither starves the other sockets nor keeps real packets queued behind it;
    /// beyond what the budget reads, the kernel drops (the queue stays short, the audio fresh).
    func receivePending(now: MediaTime, events: UnsafeMutablePointer<epoll_event>, capacity: Int) {
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let wallToMonotonic = now.nanoseconds - (Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec))
        let deadline = now + MediaTime(nanoseconds: interval.nanoseconds / 2)
        while true {
            let n = Int(epoll_wait(socketEpfd, events, Int32(capacity), 0))
            if n <= 0 { return }
            var i = 0
            while i < n {
                let key = events[i].data.u64
                if let task = entries[Int(key >> 8)]?.task {
                    var read = 0
                    while read < Self.datagramsPerTurn,
                        task.readable(descriptorIndex: Int(key & 0xFF), now: now, wallToMonotonic: wallToMonotonic)
                    {
                        read += 1
                    }
                    worker.datagramsRead.add(read, ordering: .relaxed)
                }
                i += 1
            }
            if clock.now() >= deadline {
                worker.readBudgetExhausted.add(1, ordering: .relaxed)
                return
            }
        }
    }

    func runTick(now: MediaTime, expirations: UInt64) {
        lastYield = clock.now()
        var i = 0
        while i < tickOrder.count {  // index loops: no iterator, so no allocation even unoptimized
            tickOrder[i].playoutTick(now: now)
            yieldIfDue()
            i += 1
        }
        i = 0
        while i < tickOrder.count {
            tickOrder[i].tick(now: now)
            yieldIfDue()
            i += 1
        }
        let end = clock.now()
        let spent = end - now
        if let load = loadMeter.record(busy: spent, endingAt: end) {
            worker.loadPermille.store(Int(load * 1_000), ordering: .relaxed)
        }
        let us = Int(spent.nanoseconds / 1_000)
        if us > worker.maxTickMicroseconds.load(ordering: .relaxed) { worker.maxTickMicroseconds.store(us, ordering: .relaxed) }
        if spent >= interval { worker.overruns.add(1, ordering: .relaxed) }
        worker.ticks.add(1, ordering: .relaxed)
        applyCommands()
    }

    /// Longest stretch of media work between two offers of the core to other threads.
    static let yieldInterval = MediaTime.microseconds(250)
    private var lastYield = MediaTime.zero

    /// Offers the core to any thread waiting for it (the SIP event loops above all) once
    /// ``yieldInterval`` of work has run. A tick for many calls takes milliseconds, and the
    /// scheduler otherwise lets a busy worker finish its slice before a thread that just woke
    /// runs; yielding between streams bounds that wait by one stream's work. With no other
    /// thread runnable the yield returns at once (one system call every quarter millisecond).
    @inline(__always)
    private func yieldIfDue() {
        let now = clock.now()
        if now - lastYield >= Self.yieldInterval {
            sched_yield()
            lastYield = clock.now()
        }
    }

    func applyCommands() {
        guard let commands = worker.takePending() else { return }
        for (id, command, done) in commands {
            switch command {
            case .attach(let boxed):
                let fds = boxed.task.descriptors
                for (i, fd) in fds.enumerated() {
                    var ev = epoll_event()
                    ev.events = EPOLLIN.rawValue
                    ev.data.u64 = UInt64(id) << 8 | UInt64(i)
                    epoll_ctl(socketEpfd, EPOLL_CTL_ADD, fd, &ev)
                }
                entries[id] = Entry(id: id, task: boxed.task, fds: fds)
                tickOrder.append(boxed.task)
                worker.taskCount.add(1, ordering: .relaxed)
            case .shutdown:
                stopped = true
                entries.removeAll()
                tickOrder.removeAll()
            case .detach(let id):
                if let entry = entries.removeValue(forKey: id) {
                    for fd in entry.fds { epoll_ctl(socketEpfd, EPOLL_CTL_DEL, fd, nil) }
                    tickOrder.removeAll { $0 === entry.task }
                    worker.taskCount.add(-1, ordering: .relaxed)
                }
            }
            done.signal()
        }
    }
}
