import Dispatch
import Foundation
import VoiceMedia
import VoiceSIP
import VoiceSupport

/// One call, outgoing (from ``VoiceClient/connect(options:delegate:)``) or incoming (from
/// ``CallInvite/accept(delegate:)``), mirroring Twilio's `TVOCall`.
///
/// Safe to use from any thread: properties read a snapshot, actions are queued onto the
/// client's signaling loop and never block. Delegate callbacks arrive on the delegate queue
/// of the connect or accept options, in order. Every action on a disconnected call has no effect.
public final class Call: Sendable, CustomStringConvertible {
    struct Snapshot: Sendable {
        var state: CallState = .connecting
        var sid: String?
        var from: String?
        var to: String?
        var isMuted = false
        var isOnHold = false
        var audioProcessing = AudioProcessingOptions.none
        var warnings: Set<CallQualityWarning> = []
        var audioInterruption: CallAudioInterruption?
        var details: CallDetails
    }

    /// The call's UUID.
    public let uuid: UUID
    let snapshot: Locked<Snapshot>
    let core: Locked<CallCore?>
    /// Where feedback goes, kept past the end of the call: feedback is usually collected then.
    let feedbackPublisher = Locked<InsightsSink?>(nil)
    /// The recording in progress (``startRecording(to:options:completion:)``).
    let recordingSlot = Locked<AudioRecording?>(nil)
    private let eventStream: AsyncStream<CallEvent>
    let eventContinuation: AsyncStream<CallEvent>.Continuation

    /// The queue of the connect or accept options: callbacks and completions run there.
    let delegateQueue: DispatchQueue

    init(uuid: UUID, from: String?, to: String?, sid: String?, delegateQueue: DispatchQueue) {
        self.uuid = uuid
        self.delegateQueue = delegateQueue
        self.snapshot = Locked(Snapshot(sid: sid, from: from, to: to, details: CallDetails(createdAt: Date())))
        self.core = Locked(nil)
        (eventStream, eventContinuation) = AsyncStream.makeStream(
            of: CallEvent.self, bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
    }

    /// The caller (our identity for an outgoing call, the invite's `from` for an incoming one).
    public var from: String? { snapshot.withLock { $0.from } }
    /// The callee.
    public var to: String? { snapshot.withLock { $0.to } }
    /// The call's SID (`CA` + 32 hex), known from the first INVITE on.
    public var sid: String { snapshot.withLock { $0.sid ?? "" } }
    /// The current state. It changes on the delegate queue, right before the callback that
    /// announces it, so a delegate reads the state its callback announces; from other threads it
    /// may lag the signaling by the callbacks still queued.
    public var state: CallState { snapshot.withLock { $0.state } }
    /// Timestamps and the end cause.
    public var details: CallDetails { snapshot.withLock { $0.details } }
    /// The call's audio interruption while one lasts (its device failed or could not open and
    /// is being reopened), nil otherwise. Changes on the delegate queue, right before the
    /// callback that announces it.
    public var audioInterruption: CallAudioInterruption? { snapshot.withLock { $0.audioInterruption } }
    /// Whether the call's audio is interrupted now.
    package var isAudioInterrupted: Bool { audioInterruption != nil }
    /// The current quality warnings.
    public var callQualityWarnings: Set<CallQualityWarning> { snapshot.withLock { $0.warnings } }
    /// Every state change, warning and message, in delegate order; finishes when the call disconnects.
    /// Events wait here until read; of those not read, the newest 64 are kept,
    /// so a call whose events nobody reads holds a bounded amount of memory.
    public var events: AsyncStream<CallEvent> { eventStream }

    /// How many unread events ``events`` keeps (the newest).
    package static let eventBufferLimit = 64

    /// Mute: the media engine sends silent frames. Only takes effect while connected.
    public var isMuted: Bool {
        get { snapshot.withLock { $0.isMuted } }
        set { perform { $0.setMuted(newValue) } }
    }

    /// Hold: a re-INVITE with `a=sendonly`; we send silence and stop playing the peer's audio.
    /// Only takes effect while connected.
    public var isOnHold: Bool {
        get { snapshot.withLock { $0.isOnHold } }
        set { perform { $0.setOnHold(newValue) } }
    }

    /// The voice processing on the call's audio device: echo cancellation, noise suppression,
    /// gain control and the high-pass filter. It belongs to the device, so setting it changes
    /// the processing of every call on that device (the last setting wins). May be set at any
    /// time, during the call too; it takes effect within 10 ms. A device whose sample rate the
    /// processor cannot take runs unprocessed, and one that cannot play runs without echo
    /// cancellation: a warning is logged and ``CallAudioProcessingStats/fallback`` says why.
    public var audioProcessing: AudioProcessingOptions {
        get { snapshot.withLock { $0.audioProcessing } }
        set {
            snapshot.withLock { $0.audioProcessing = newValue }
            perform { $0.setAudioProcessing(newValue) }
        }
    }

    /// Ends the call (CANCEL, reject or BYE as the state needs) and frees its sockets, device
    /// and timers. Idempotent.
    public func disconnect() { perform { $0.disconnect() } }

    /// Sends `0`–`9`, `*`, `#` as RFC 4733 events (SIP INFO when the peer has no
    /// telephone-event); each `w` pauses 500 ms. Other characters make the whole string
    /// ignored. No effect unless connected.
    public func sendDigits(_ digits: String) { perform { $0.sendDigits(digits) } }

    /// A blind transfer: asks the far end to call `destination` (a user name, number or SIP
    /// address, as ``VoiceClient/connect(options:delegate:)`` takes them; SIP REFER). How it
    /// goes arrives as ``CallDelegate/call(_:transferDidProgress:)``; once the target answers
    /// this call ends with ``CallEndCause/transferred``. Only while connected.
    public func transfer(to destination: String) { perform { $0.transfer(to: destination) } }

    /// An attended transfer: asks this call's far end to call `other`'s far end, replacing
    /// `other` there (REFER with Replaces), so that the two talk to each other. Both of our
    /// calls end once the transfer succeeded (`other` replaced by the target, ``CallEndCause/replaced``).
    public func transfer(replacing other: Call) {
        guard let otherCore = other.core.withLock({ $0 }) else { return }
        perform { $0.transfer(replacing: otherCore) }
    }

    /// Moves the call's audio to another device mid-call, e.g. away from an unplugged USB
    /// headset: the old device is released and the call, its media and the peer see no change.
    /// `completion` runs on the delegate queue with nil, or the new device's error (the call
    /// then stays on its old device). An interruption of the old device ends with the switch.
    public func switchAudioDevice(to device: any AudioDevice, completion: (@Sendable (AudioDeviceError?) -> Void)? = nil) {
        guard let core = core.withLock({ $0 }) else {
            delegateQueue.async { completion?(AudioDeviceError(kind: .ioFailed, message: "the call has ended")) }
            return
        }
        core.client.onLoop { core.switchAudioDevice(to: device, completion: completion) }
    }

    /// Delivers the stats of the audio track to `completion` on the delegate queue (nil once the
    /// call has no media).
    public func getStats(_ completion: @escaping @Sendable (CallStatsReport?) -> Void) {
        let queue = delegateQueue
        guard let core = core.withLock({ $0 }) else {
            queue.async { completion(nil) }
            return
        }
        core.client.onLoop {
            let report = core.statsReport()
            queue.async { completion(report) }
        }
    }

    /// The stats of the audio track, or nil once the call has no media.
    public func stats() async -> CallStatsReport? {
        guard let core = core.withLock({ $0 }) else { return nil }
        return await withCheckedContinuation { continuation in
            core.client.onLoop { continuation.resume(returning: core.statsReport()) }
        }
    }

    /// Posts the user's feedback on the call as an Insights event (`feedback` `received` or
    /// `received-none`). Also works once the call has ended, when feedback is usually collected.
    public func postFeedback(score: CallFeedbackScore, issue: CallFeedbackIssue) {
        let sid = self.sid
        feedbackPublisher.withLock { $0 }?.publish(
            InsightsEvent.feedback(score: score, issue: issue, callSid: sid.isEmpty ? nil : sid, at: Date()))
    }

    /// Sends a call message (SIP INFO, application/json by default); the outcome goes to the
    /// call message delegate. Returns the message's `voiceEventSid`, or "" when the call is not connected.
    public func sendMessage(_ message: CallMessage) -> String {
        guard state == .connected || state == .reconnecting, let core = core.withLock({ $0 }) else { return "" }
        core.client.onLoop { core.sendMessage(message) }
        return message.voiceEventSid
    }

    public var description: String { "Call(\(sid.isEmpty ? uuid.uuidString : sid), \(state))" }

    private func perform(_ body: @escaping @Sendable (CallCore) -> Void) {
        guard let core = core.withLock({ $0 }) else { return }
        core.client.onLoop { body(core) }
    }

    func update(_ body: (inout Snapshot) -> Void) { snapshot.withLock { body(&$0) } }
}

extension Call: Equatable {
    /// Calls are equal when they are the same object.
    public static func == (lhs: Call, rhs: Call) -> Bool { lhs === rhs }
}
