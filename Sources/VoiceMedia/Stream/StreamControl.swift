import Synchronization
import Dispatch
import VoiceSupport

/// The remote endpoints media goes to.
struct RemoteEndpoints: Sendable {
    var rtp: SocketAddress
    var rtcp: SocketAddress?
}

/// State shared between the controlling threads and a stream's media thread. The media thread
/// only reads atomics and uses try-locks here, so it never waits on a controlling thread.
final class StreamControl: Sendable {
    let muted = Atomic<Bool>(false)
    let onHold = Atomic<Bool>(false)
    let byeRequested = Atomic<Bool>(false)
    /// Whether media follows the peer's authenticated packets to a new address.
    let symmetricRTP = Atomic<Bool>(true)
    let captureOverflows = Atomic<UInt64>(0)
    let renderUnderruns = Atomic<UInt64>(0)
    let snapshot = Locked<AudioStreamStats>(AudioStreamStats())
    let remote = Locked<RemoteEndpoints?>(nil)
    let remoteVersion = Atomic<Int>(0)
    /// A renegotiation waiting for the media thread, and a count that says one was posted.
    let renegotiation = Locked<StreamRenegotiation?>(nil)
    let renegotiationVersion = Atomic<Int>(0)
    let events: Locked<(@Sendable (AudioStreamEvent) -> Void)?>
    let sockets = Locked<[UDPSocket]>([])
    /// Digits queued by ``AudioStream/sendDigits(_:)``; the count lets the media thread skip the lock.
    let digits = Locked<[Character]>([])
    let pendingDigits = Atomic<Int>(0)
    private let byeDone = DispatchSemaphore(value: 0)

    init(events: (@Sendable (AudioStreamEvent) -> Void)?) {
        self.events = Locked(events)
    }

    func setRemote(rtp: SocketAddress, rtcp: SocketAddress?) {
        remote.withLock { $0 = RemoteEndpoints(rtp: rtp, rtcp: rtcp) }
        remoteVersion.add(1, ordering: .releasing)
    }

    /// Hands a renegotiation to the media thread; one it has not taken yet is folded in.
    func post(_ change: StreamRenegotiation) {
        renegotiation.withLock { slot in
            slot = slot.map { change.following($0) } ?? change
        }
        renegotiationVersion.add(1, ordering: .releasing)
    }

    /// Reports an event without blocking: dropped if a controlling thread holds the handler lock.
    func emit(_ event: AudioStreamEvent) {
        if let handler = events.withLockIfAvailable({ $0 }) ?? nil { handler(event) }
    }

    func signalByeSent() { byeDone.signal() }

    /// Waits (bounded) for the media thread to send the RTCP BYE.
    func waitForBye() { _ = byeDone.wait(timeout: .now() + .milliseconds(100)) }

    func closeSockets() {
        sockets.withLock { list in
            for s in list { s.close() }
            list.removeAll()
        }
    }
}
