import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import CVoiceSys
import VoiceRTP
import VoiceSupport

/// One thread of the real-time engine: sleeps until a periodic `timerfd` tick, reads what
/// `epoll` reports on its tasks' transports, then runs their ticks. A task that asks for it
/// (``MediaTask/wantsPromptReceive``: a handshake under way) also has its sockets in the
/// wake-up set, so what it receives is handled, and answered, the moment it arrives.
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
        /// The descriptors epoll watches for the task, and the index of each one's transport.
        let fds: [Int32]
        let fdTransports: [Int]
        /// Indexes of the task's transports that have no descriptor: read every tick.
        let polled: [Int]
        /// Whether its descriptors are in the wake-up set too (prompt reads).
        var prompt = false
    }
    let epfd: Int32
    let socketEpfd: Int32
    let timerfd: Int32
    let eventfd: Int32
    let interval: MediaTime
    let worker: MediaWorker  // the engine shuts the loop down before it lets go of the worker
    var entries: [Int: Entry] = [:]
    /// Entries with transports that have no descriptor.
    var polledEntries: [Entry] = []
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
                } else if key == UInt64.max - 1 {
                    _ = read(eventfd, &scratch, 8)
                    applyCommands()
                } else {
                    receivePromptly(key: key, now: now)
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
        let wallClockOffset = Self.wallClockOffset(at: now)
        let deadline = now + MediaTime(nanoseconds: interval.nanoseconds / 2)
        if !polledEntries.isEmpty {
            var i = 0
            while i < polledEntries.count {
                let entry = polledEntries[i]
                for index in entry.polled { readTurn(entry.task, transport: index, now: now, wallClockOffset: wallClockOffset) }
                i += 1
            }
        }
        while true {
            let n = Int(epoll_wait(socketEpfd, events, Int32(capacity), 0))
            if n <= 0 { return }
            var i = 0
            while i < n {
                let key = events[i].data.u64
                if let task = entries[Int(key >> 8)]?.task {
                    readTurn(task, transport: Int(key & 0xFF), now: now, wallClockOffset: wallClockOffset)
                }
                i += 1
            }
            if clock.now() >= deadline {
                worker.readBudgetExhausted.add(1, ordering: .relaxed)
                return
            }
        }
    }

    /// Reads up to ``datagramsPerTurn`` datagrams from one of `task`'s transports, and counts them.
    private func readTurn(_ task: MediaTask, transport index: Int, now: MediaTime, wallClockOffset: Int64) {
        var read = 0
        while read < Self.datagramsPerTurn, task.receive(from: index, now: now, wallClockOffset: wallClockOffset) { read += 1 }
        worker.datagramsRead.add(read, ordering: .relaxed)
    }

    /// The wall clock minus the media clock's `now`, which converts kernel receive stamps.
    private static func wallClockOffset(at now: MediaTime) -> Int64 {
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        return (Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)) - now.nanoseconds
    }

    /// A socket of a task in a handshake became readable between ticks: reads it now.
    func receivePromptly(key: UInt64, now: MediaTime) {
        let id = Int(key >> 8)
        guard let task = entries[id]?.task else { return }
        readTurn(task, transport: Int(key & 0xFF), now: now, wallClockOffset: Self.wallClockOffset(at: now))
        updatePromptReads(id)
    }

    /// Puts the task's descriptors in the wake-up set, or takes them out, as it now asks.
    func updatePromptReads(_ id: Int) {
        guard var entry = entries[id] else { return }
        let wanted = entry.task.wantsPromptReceive
        guard wanted != entry.prompt, !entry.fds.isEmpty else { return }
        for (index, fd) in entry.fds.enumerated() {
            if wanted {
                var ev = epoll_event()
                ev.events = EPOLLIN.rawValue
                ev.data.u64 = UInt64(id) << 8 | UInt64(entry.fdTransports[index])
                epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)
            } else {
                epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
            }
        }
        entry.prompt = wanted
        entries[id] = entry
        if wanted { promptIDs.append(id) } else { promptIDs.removeAll { $0 == id } }
    }

    /// Tasks whose sockets are in the wake-up set: asked after every tick whether they still
    /// want it. The others are asked every ``promptSweepTicks`` ticks (an ICE restart mid-call).
    var promptIDs: [Int] = []
    var ticksSinceSweep = 0
    static let promptSweepTicks = 20

    func refreshPromptReads() {
        var i = promptIDs.count - 1
        while i >= 0 {
            if i < promptIDs.count { updatePromptReads(promptIDs[i]) }
            i -= 1
        }
        ticksSinceSweep += 1
        guard ticksSinceSweep >= Self.promptSweepTicks else { return }
        ticksSinceSweep = 0
        for id in entries.keys { updatePromptReads(id) }
    }

    func runTick(now: MediaTime, expirations: UInt64) {
        lastYield = clock.now()
        var i = 0
        while i < tickOrder.count {  // index loops: no iterator, so no allocation even unoptimized
            tickOrder[i].playoutTick(now: now, pass: .urgent)
            yieldIfDue()
            i += 1
        }
        i = 0
        while i < tickOrder.count {
            tickOrder[i].playoutTick(now: now, pass: .remaining)
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
        refreshPromptReads()
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
                var fds: [Int32] = []
                var fdTransports: [Int] = []
                var polled: [Int] = []
                for (i, transport) in boxed.task.transports.enumerated() {
                    guard let fd = transport.readinessDescriptor else {
                        polled.append(i)
                        continue
                    }
                    var ev = epoll_event()
                    ev.events = EPOLLIN.rawValue
                    ev.data.u64 = UInt64(id) << 8 | UInt64(i)
                    epoll_ctl(socketEpfd, EPOLL_CTL_ADD, fd, &ev)
                    fds.append(fd)
                    fdTransports.append(i)
                }
                let entry = Entry(id: id, task: boxed.task, fds: fds, fdTransports: fdTransports, polled: polled)
                entries[id] = entry
                if !polled.isEmpty { polledEntries.append(entry) }
                tickOrder.append(boxed.task)
                worker.taskCount.add(1, ordering: .relaxed)
                boxed.task.attached(now: clock.now())
                updatePromptReads(id)
            case .shutdown:
                stopped = true
                entries.removeAll()
                promptIDs.removeAll()
                polledEntries.removeAll()
                tickOrder.removeAll()
            case .detach(let id):
                if let entry = entries.removeValue(forKey: id) {
                    for fd in entry.fds {
                        epoll_ctl(socketEpfd, EPOLL_CTL_DEL, fd, nil)
                        if entry.prompt { epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil) }
                    }
                    tickOrder.removeAll { $0 === entry.task }
                    if entry.prompt { promptIDs.removeAll { $0 == id } }
                    polledEntries.removeAll { $0.id == id }
                    worker.taskCount.add(-1, ordering: .relaxed)
                }
            }
            done.signal()
        }
    }
}
