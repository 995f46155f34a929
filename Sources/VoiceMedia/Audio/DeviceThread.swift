import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import VoiceSupport

/// A named POSIX thread running one device loop, with a stop flag and a join that is safe to
/// call from the thread itself.
///
/// Threading: ``requestStop()`` and ``stopAndJoin()`` may be called from any thread; the body
/// polls ``shouldStop``.
final class DeviceThread: Sendable {
    private let stopFlag = Atomic<Bool>(false)
    private let joined = Atomic<Bool>(false)
    private let handle = Locked<pthread_t?>(nil)

    private init() {}

    /// True once a stop was requested; the body returns soon after.
    var shouldStop: Bool { stopFlag.load(ordering: .acquiring) }

    /// Asks the body to return, without waiting.
    func requestStop() { stopFlag.store(true, ordering: .releasing) }

    /// True when called on this thread.
    var isCurrent: Bool {
        handle.withLock { tid in tid.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Requests a stop and waits for the body to return. From the thread itself it only
    /// requests the stop (and detaches the thread so it is reclaimed). Idempotent.
    func stopAndJoin() {
        requestStop()
        guard !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard let tid = handle.withLock({ $0 }) else { return }
        if pthread_equal(tid, pthread_self()) != 0 {
            pthread_detach(tid)
        } else {
            pthread_join(tid, nil)
        }
    }

    /// Starts a thread named `name` (at most 15 bytes are kept) running `body`, at real-time
    /// priority unless `realTime` is false (a thread that watches rather than moves audio).
    static func start(name: String, realTime: Bool = true, body: @escaping @Sendable (DeviceThread) -> Void) throws(AudioDeviceError) -> DeviceThread {
        let thread = DeviceThread()
        let box = Unmanaged.passRetained(Payload(thread: thread, name: name, realTime: realTime, body: body))
        // Hold the lock across creation so the body's `isCurrent` sees the handle.
        let rc: Int32 = thread.handle.withLock { slot in
            var tid = pthread_t()
            let rc = pthread_create(
                &tid, nil,
                { raw in
                    guard let raw else { return nil }
                    let payload = Unmanaged<Payload>.fromOpaque(raw).takeRetainedValue()
                    Thread.current.name = String(payload.name.utf8.prefix(15)) ?? "voice-audio"  // Sets the OS thread name.
                    if payload.realTime { DeviceThread.requestRealTimePriority() }
                    payload.body(payload.thread)
                    return nil
                }, box.toOpaque())
            if rc == 0 { slot = tid }
            return rc
        }
        guard rc == 0 else {
            box.release()
            throw AudioDeviceError(kind: .ioFailed, code: rc, message: "cannot start thread \(name): errno \(rc)")
        }
        return thread
    }

    /// Asks for SCHED_FIFO at a modest priority, as audio threads in pjsip or PortAudio do, so a
    /// device period is not held up behind codec work on a busy machine. Best effort: without
    /// the privilege (CAP_SYS_NICE or an rtprio limit) the thread keeps normal scheduling.
    /// Device loops do little work per period and always sleep, so they cannot starve the system.
    static func requestRealTimePriority() {
        var param = sched_param()
        param.sched_priority = 10
        _ = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param)
    }

    private final class Payload: Sendable {
        let thread: DeviceThread
        let name: String
        let realTime: Bool
        let body: @Sendable (DeviceThread) -> Void
        init(thread: DeviceThread, name: String, realTime: Bool, body: @escaping @Sendable (DeviceThread) -> Void) {
            self.thread = thread
            self.name = name
            self.realTime = realTime
            self.body = body
        }
    }
}
