import VoiceAddress
import VoiceICE
import VoiceMediaPath
import Synchronization
import Dispatch
import VoiceRTP
import VoiceSupport

/// State shared between the controlling threads and a stream's media thread. The media thread
/// only reads atomics, uses try-locks and posts events into a lock-free queue here, so it never
/// waits on a controlling thread.
final class StreamControl: Sendable {
    let muted = Atomic<Bool>(false)
    let onHold = Atomic<Bool>(false)
    let byeRequested = Atomic<Bool>(false)
    /// Whether media follows the peer's authenticated packets to a new address.
    let symmetricRTP = Atomic<Bool>(true)
    /// Which received frames the device wants decoded (``DedicatedAudioDevice/receivedAudioDecoding``, as its code).
    let receivedAudioDecoding = Atomic<Int>(ReceivedAudioDecoding.always.code)
    let captureOverflows = Atomic<UInt64>(0)
    let renderUnderruns = Atomic<UInt64>(0)
    /// Which of the device's directions are interrupted (failed, being reopened): one set, so
    /// both directions failing at once from their own threads count one interruption.
    let interrupted = Atomic<UInt8>(0)
    /// Device xruns by direction, suspends recovered in place, and interruptions begun.
    let captureXruns = Atomic<UInt64>(0)
    let renderXruns = Atomic<UInt64>(0)
    let deviceSuspends = Atomic<UInt64>(0)
    let deviceInterruptions = Atomic<UInt64>(0)
    /// Captured buffers delivered and render buffers pulled by the device so far: the media
    /// thread watches them move to tell a device that stalls (a sound server starting up).
    let captureDeliveries = Atomic<UInt64>(0)
    let renderPulls = Atomic<UInt64>(0)
    /// 48 kHz samples the media thread keeps queued ahead of the render device (set per device).
    let renderTarget = Atomic<Int>(960)
    /// The RFC 6464 levels the peer's packets carry, published by the media thread.
    let receivedAudioLevel = ReceivedAudioLevel()

    /// Whether either direction of the device is interrupted.
    var isInterrupted: Bool { interrupted.load(ordering: .relaxed) != 0 }

    /// The bit of `interrupted` for a direction.
    static func interruptedBit(capture: Bool) -> UInt8 { capture ? 1 : 2 }

    /// Records a device event in the flags and counters the media thread and the stats read.
    func record(_ event: AudioDeviceEvent) {
        switch event {
        case .xrunRecovered(let capture):
            if capture { captureXruns.add(1, ordering: .relaxed) } else { renderXruns.add(1, ordering: .relaxed) }
        case .suspendRecovered:
            deviceSuspends.add(1, ordering: .relaxed)
        case .failed:
            // A device used without the shared hub, which would reopen it: keep sending silence.
            setInterrupted(true, capture: true)
        case .interrupted(let capture, _):
            setInterrupted(true, capture: capture)
        case .resumed(let capture):
            setInterrupted(false, capture: capture)
        }
    }

    private func setInterrupted(_ value: Bool, capture: Bool) {
        let bit = Self.interruptedBit(capture: capture)
        if value {
            let before = interrupted.bitwiseOr(bit, ordering: .acquiringAndReleasing).oldValue
            if before == 0 { deviceInterruptions.add(1, ordering: .relaxed) }
        } else {
            interrupted.bitwiseAnd(~bit, ordering: .acquiringAndReleasing)
        }
    }
    /// The stream's encoding as the media thread last published it, for a conference bridge
    /// that encodes once for many streams (``SharedEncodingSink``), and its version.
    let sharedEncoding = Locked<SharedEncodingKey?>(nil)
    let sharedEncodingVersion = Atomic<Int>(0)
    /// Where what the stream sends and plays is recorded, and its version.
    let recording = Locked<RecordingTap?>(nil)
    let recordingVersion = Atomic<Int>(0)
    let snapshot = Locked<AudioStreamStats>(AudioStreamStats())
    let remote = Locked<RemoteEndpoints?>(nil)
    /// An ICE restart for the media thread, and a count that says one was posted.
    let iceRestart = Locked<MediaPath.ICERestart?>(nil)
    let iceRestartVersion = Atomic<Int>(0)
    /// The peer's candidates resolved from names (mDNS), each with the ufrag it belongs to,
    /// for the media thread, and a count that says more were posted.
    let resolvedCandidates = Locked<[(candidates: [ICECandidate], usernameFragment: String)]>([])
    let resolvedCandidatesVersion = Atomic<Int>(0)
    /// The host's usable addresses, newest only (``AudioStream/localAddressesChanged(_:)``).
    let localAddresses = Locked<[IPAddress]?>(nil)
    let localAddressesVersion = Atomic<Int>(0)
    /// The last new TURN allocation asked for (the host moved); who waits for its relayed
    /// candidate is in ``StreamEvents/relayCompletion``.
    let relayReallocationVersion = Atomic<Int>(0)
    let remoteVersion = Atomic<Int>(0)
    /// A renegotiation waiting for the media thread, and a count that says one was posted.
    let renegotiation = Locked<PendingChange?>(nil)
    let renegotiationVersion = Atomic<Int>(0)
    /// The stream's events on their way to the handler (see ``StreamEvents``).
    let events: StreamEvents
    /// The stream's transports, closed once the stream has left the engine.
    let transports = Locked<[any MediaTransport]>([])
    /// Digits queued by ``AudioStream/sendDigits(_:)``; the count lets the media thread skip the lock.
    let digits = Locked<[Character]>([])
    let pendingDigits = Atomic<Int>(0)
    private let byeDone = DispatchSemaphore(value: 0)

    init(events: StreamEvents) {
        self.events = events
    }

    func setRemote(rtp: SocketAddress, rtcp: SocketAddress?) {
        remote.withLock { $0 = RemoteEndpoints(rtp: rtp, rtcp: rtcp) }
        remoteVersion.add(1, ordering: .releasing)
    }

    /// A renegotiation on its way to the media thread.
    struct PendingChange: @unchecked Sendable {
        // @unchecked: built on one thread, then handed once to the stream's media thread through
        // `renegotiation`; never touched by the builder after that.
        let change: RTPStreamChange
    }

    /// Hands a renegotiation to the media thread; one it has not taken yet is folded in.
    func post(_ change: RTPStreamChange) {
        renegotiation.withLock { slot in
            slot = PendingChange(change: slot.map { change.following($0.change) } ?? change)
        }
        renegotiationVersion.add(1, ordering: .releasing)
    }

    /// Reports an event without waiting: it is queued for the handler, which runs on the
    /// controlling side (a full queue is counted and reported, see ``StreamEvents``).
    func emit(_ event: AudioStreamEvent) { events.post(event) }

    func signalByeSent() { byeDone.signal() }

    /// Waits (bounded) for the media thread to send the RTCP BYE.
    func waitForBye() { _ = byeDone.wait(timeout: .now() + .milliseconds(100)) }

    func closeTransports() {
        transports.withLock { list in
            for t in list { t.close() }
            list.removeAll()
        }
    }
}
