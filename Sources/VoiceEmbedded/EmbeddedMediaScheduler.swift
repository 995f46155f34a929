import VoiceMedia
import VoiceRTP
import VoiceSupport

/// The embedded engine's ticks: no thread, virtual time moved by ``advance(to:)``.
///
/// Each tick at time t, in order: the network delivers what is due by t, the software audio
/// clock ticks (devices deliver capture and pull render), every task reads all its transports
/// hold, then every task plays out, then every task ticks. The order is the threaded engine's
/// (read, playout pass, tick pass); only the time is made up.
///
/// Threading: every call comes from one thread at a time (the test's, which is the embedded
/// event loop's); a lock keeps the bookkeeping safe all the same. Tasks run outside it, so a
/// task may attach or detach tasks from inside a tick.
package final class EmbeddedMediaScheduler: MediaTaskScheduler {
    private struct State {
        var tasks: [(id: Int, task: UncheckedTask)] = []
        var nextID = 1
        var now: MediaTime
        var nextTick: MediaTime
        var nextAudioTick: MediaTime
        var ticks = 0
        var datagramsRead = 0
    }

    package let network: InMemoryMediaNetwork
    let tickInterval: MediaTime
    /// Paces software devices on this engine, as ``SoftwareAudioClock/shared`` paces them in
    /// real time: ticked every 5 ms of virtual time, devices started on four phases.
    package let audioClock: SoftwareAudioClock
    let manualClock: ManualMediaClock
    private let state: Locked<State>

    init(network: InMemoryMediaNetwork, tickInterval: MediaTime, start: MediaTime) {
        precondition(tickInterval.nanoseconds > 0, "tick interval must be positive")
        self.network = network
        self.tickInterval = tickInterval
        self.audioClock = SoftwareAudioClock(manualPeriod: .milliseconds(5), phases: 4, name: "voice-audio-virt")
        self.manualClock = ManualMediaClock(start: start)
        self.state = Locked(State(now: start, nextTick: start + tickInterval, nextAudioTick: start))
        network.advance(to: start)
    }

    package var clock: any MediaClock { manualClock }
    package var transports: MediaTransportFactory { network.transports }

    package var stats: MediaEngineStats {
        state.withLock { MediaEngineStats(ticks: $0.ticks, tasks: $0.tasks.count, datagramsRead: $0.datagramsRead) }
    }

    package func attach(_ task: MediaTask) -> Int {
        state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.tasks.append((id, UncheckedTask(task: task)))
            return id
        }
    }

    package func detach(_ id: Int) {
        state.withLock { s in s.tasks.removeAll { $0.id == id } }
    }

    /// Whether `id` is still attached (a task detached during a tick is not called again).
    private func isAttached(_ id: Int) -> Bool {
        state.withLock { s in s.tasks.contains { $0.id == id } }
    }

    /// Runs, in time order, every audio clock tick and engine tick due up to `time`, then
    /// stands at `time`. A time in the past does nothing.
    package func advance(to time: MediaTime) {
        while true {
            let next = state.withLock { s -> (MediaTime, isAudio: Bool)? in
                let due = min(s.nextTick, s.nextAudioTick)
                guard due <= time else { return nil }
                return (due, s.nextAudioTick <= s.nextTick)
            }
            guard let (due, isAudio) = next else { break }
            setTime(due)
            if isAudio {
                state.withLock { $0.nextAudioTick = due + audioClock.period }
                audioClock.tick(at: due)
            } else {
                state.withLock { $0.nextTick = due + tickInterval }
                runTick(at: due)
            }
        }
        setTime(time)
    }

    private func setTime(_ time: MediaTime) {
        let moved = state.withLock { s -> Bool in
            guard time > s.now else { return false }
            s.now = time
            return true
        }
        if moved {
            manualClock.set(to: time)
            network.advance(to: time)
        }
    }

    /// Ticks one task at the current time, outside the schedule.
    package func tickNow(_ id: Int) {
        let (entry, now) = state.withLock { s in (s.tasks.first { $0.id == id }, s.now) }
        entry?.task.task.tick(now: now)
    }

    private func runTick(at now: MediaTime) {
        let tasks = state.withLock { $0.tasks }
        var read = 0
        for entry in tasks where isAttached(entry.id) {
            for index in entry.task.task.transports.indices {
                while entry.task.task.receive(from: index, now: now, wallClockOffset: network.wallClockOffset) { read += 1 }
            }
        }
        for entry in tasks where isAttached(entry.id) { entry.task.task.playoutTick(now: now, pass: .urgent) }
        for entry in tasks where isAttached(entry.id) { entry.task.task.playoutTick(now: now, pass: .remaining) }
        for entry in tasks where isAttached(entry.id) { entry.task.task.tick(now: now) }
        state.withLock { s in
            s.ticks += 1
            s.datagramsRead += read
        }
    }
}
