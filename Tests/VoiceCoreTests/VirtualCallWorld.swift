import VoiceEmbedded
import Dispatch
import Foundation
import NIOCore
import NIOEmbedded
import VoiceMedia
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore
@testable import VoiceSIPAgent

/// Whole calls in virtual time, with their real media: clients on one embedded event loop
/// (``SharedEmbeddedEventLoop``: other threads, such as a delegate queue that answers a call,
/// may queue work on it) and an
/// in-memory SIP network, their streams (Opus, SRTP, jitter buffer) on an embedded media engine
/// and an in-memory media network, their devices paced by the engine's audio clock. Nothing
/// sleeps: time moves only when the test waits, and every wait (``PollingWait/until(timeout:every:_:)``,
/// ``PollingWait/sleep(_:)``, the delegates' waits built on them) moves it, on the loop and the
/// engine in step, 5 ms at a time, with the delegate queues drained after each step.
///
/// A test makes one world, passes it to the clients (``TestVoiceClient/init(_:signal:transport:world:configure:)``),
/// and keeps its code otherwise as it is. While a world lives, the waits on the test's thread
/// are virtual; ``close()`` (or the end of the world) returns them to real time.
final class VirtualCallWorld: @unchecked Sendable {
    // @unchecked: used from the test's thread only (the loop's); `queues` is behind a lock.
    let loop = SharedEmbeddedEventLoop()
    let sipNetwork: SIPMemoryNetwork
    let mediaNetwork = InMemoryMediaNetwork()
    let engine: MediaEngine
    /// The loop's time as a clock any thread may read (``WorldClock``).
    let clock: WorldClock
    private let start: NIODeadline
    private let queues = Locked<[DispatchQueue]>([])
    private var nextHost = 1
    private var nextMediaPort = 30_000
    private var closed = false
    private var driver: Int?

    /// The world the waits on the test's thread drive now, if any.
    private(set) nonisolated(unsafe) static var current: VirtualCallWorld?

    /// A world whose networks take `latency` one way, as loopback takes a little.
    init(latency: MediaTime = .milliseconds(1)) {
        sipNetwork = SIPMemoryNetwork(loop: loop)
        sipNetwork.latency = .nanoseconds(latency.nanoseconds)
        mediaNetwork.setConditions { _, _, _ in latency }
        start = loop.now
        clock = WorldClock(loop: loop)
        engine = .embedded(network: mediaNetwork, start: clock.now())
        Self.current = self
        driver = PollingWait.installDriver { [weak self] seconds in self?.advance(seconds: seconds) }
    }

    deinit { close() }

    /// Back to real time; the loop shuts down.
    func close() {
        guard !closed else { return }
        closed = true
        if Self.current === self { Self.current = nil }
        PollingWait.removeDriver(driver)
        try? loop.syncShutdownGracefully()
    }

    /// Virtual milliseconds since the world was made.
    var elapsedMilliseconds: Int64 { (loop.now - start).nanoseconds / 1_000_000 }

    /// Drains `queue` after every step from now on (a delegate's queue).
    func watch(_ queue: DispatchQueue) {
        queues.withLock { list in if !list.contains(where: { $0 === queue }) { list.append(queue) } }
    }

    /// Stops draining `queue` (a test that holds it on purpose).
    func unwatch(_ queue: DispatchQueue) {
        queues.withLock { list in list.removeAll { $0 === queue } }
    }

    /// A host of its own for the next client (127.0.0.1, .2, …).
    func makeHost() -> String {
        defer { nextHost += 1 }
        return "127.0.0.\(nextHost)"
    }

    /// Media ports for a client, two apart, from 30000.
    func mediaPorts() -> SIPMediaPortSource {
        let counter = Locked(nextMediaPort)
        nextMediaPort += 2_000
        return { loop in loop.makeSucceededFuture(UInt16(counter.withLock { $0 += 2; return $0 })) }
    }

    /// The pacing for devices in this world: the engine's audio clock.
    var pacing: SoftwareAudioPacing {
        engine.audioClock.map { .ticked(by: $0) } ?? .realTime
    }

    /// Runs what is due now on the loop and lets the watched queues catch up.
    func settle() {
        for _ in 0..<3 {
            whileQueuesWait { loop.run() }
            for queue in queues.withLock({ $0 }) { queue.sync {} }
        }
    }

    /// Runs `body` (the loop's work) with the watched queues suspended: a delegate callback the
    /// loop queues then runs in the drain that follows, not beside the loop's own thread (where
    /// one that calls back into the loop would touch it from two threads at once).
    private func whileQueuesWait(_ body: () -> Void) {
        let watched = queues.withLock { $0 }
        for queue in watched { queue.suspend() }
        body()
        for queue in watched { queue.resume() }
    }

    /// Moves virtual time on by `seconds`, 5 ms at a time: the loop's timers and the media
    /// engine's ticks (with the devices and the media network) in step, then the queues.
    func advance(seconds: TimeInterval) {
        var left = Int64(seconds * 1_000_000_000)
        repeat {
            let step = min(left, 5_000_000)
            let now = MediaTime(nanoseconds: Int64((loop.now + .nanoseconds(step)).uptimeNanoseconds))
            clock.stepping(to: now)
            whileQueuesWait {
                loop.advanceTime(by: .nanoseconds(step))
                engine.advance(to: now)
            }
            settle()
            left -= step
        } while left > 0
    }

    /// Runs `body` on the loop (the test's thread) at once and returns its result.
    func onLoop<T>(_ body: () throws -> T) rethrows -> T {
        precondition(loop.inEventLoop, "the world runs on the test's thread")
        return try body()
    }
}

/// A test case whose every test runs in virtual time: a fresh ``VirtualCallWorld`` before each
/// test, closed after it (a subclass that overrides `tearDown` calls `super.tearDown()` last).
class VirtualTimeTestCase: XCTestCase {
    /// This test's world.
    var world: VirtualCallWorld!

    override func setUp() {
        super.setUp()
        world = VirtualCallWorld()
    }

    override func tearDown() {
        world?.close()
        world = nil
        super.tearDown()
    }
}

/// A world's time as a ``MediaClock`` any thread may read. On the test's thread, which runs the
/// loop, it is the loop's own `now` (a timer reads the instant it fires at). Elsewhere (the
/// clients' delegate queues: a call made from a delegate callback reads the clock) it is the
/// end of the step the world is taking, because the loop's `now` is written by the test's
/// thread without a lock and may not be read from another.
final class WorldClock: MediaClock, @unchecked Sendable {
    // @unchecked: `loop` is touched only on `thread`; the rest is behind a lock.
    private let loop: SharedEmbeddedEventLoop
    private let thread = pthread_self()
    private let stepEnd: Locked<MediaTime>

    init(loop: SharedEmbeddedEventLoop) {
        self.loop = loop
        stepEnd = Locked(MediaTime(nanoseconds: Int64(loop.now.uptimeNanoseconds)))
    }

    func now() -> MediaTime {
        if pthread_equal(pthread_self(), thread) != 0 { return MediaTime(nanoseconds: Int64(loop.now.uptimeNanoseconds)) }
        return stepEnd.withLock { $0 }
    }

    /// The world is about to move the loop to `end`.
    func stepping(to end: MediaTime) { stepEnd.withLock { $0 = end } }
}
