#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a lock, with `Mutex`'s interface: `withLock` hands the body exclusive access,
/// `withLockIfAvailable` never waits (the audio threads use it), and values cross in and out
/// only as `sending`, so a non-`Sendable` value cannot escape to another thread while still
/// reachable here.
///
/// It stands where the package would otherwise use `Synchronization.Mutex`, whose contended
/// path (a priority-inheritance futex taken inside the uninstrumented standard library) is
/// invisible to ThreadSanitizer: every contended `Mutex` reads as a data race there. A pthread
/// mutex is intercepted by the sanitizer, so the races it reports are real ones. (`NIOLock` is
/// a pthread mutex too, but has no try-lock.)
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: sending Value) {
        // An empty value (`Void`) has no address of its own, and the sanitizer's exclusivity
        // checks then see unrelated locks' accesses as one: keep something in the lock.
        assert(MemoryLayout<Value>.size > 0, "a Locked value needs storage")
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, waiting for the lock if another thread holds it.
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value if the lock is free at once; nil (and `body` not run) if not.
    package func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
