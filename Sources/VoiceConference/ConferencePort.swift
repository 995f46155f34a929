import Synchronization
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// A participant's place on a conference bridge, seen by its call as an audio device
/// (48 kHz mono, 10 ms): what the call plays (the participant's decoded voice) goes into the
/// mix; what the call captures (and encodes for the participant) is the mix of the others,
/// handed over a whole codec frame at a time, as samples or, for a listener on the room's
/// shared encode, as the frame already encoded (``ConferenceBridge``).
///
/// The call uses it directly (``DedicatedAudioDevice``), not through the hub that shares a
/// device among calls: no voice processing touches the mix, and encoded frames reach its stream.
///
/// The bridge's clock thread drives both directions: no thread of its own. Threading: the call's
/// contexts are swapped under a lock; the clock thread only tries it and never waits (a period
/// that finds it taken is skipped, and counted), and `stop*` returns only once no call into the
/// old context can run.
final class ConferencePort: DedicatedAudioDevice, @unchecked Sendable {
    // @unchecked: `contexts` is behind its lock.
    private struct Contexts: @unchecked Sendable {
        // @unchecked: the contexts are Sendable; `sink` is the capture context itself.
        var capture: (any AudioDeviceContext)?
        /// The capture context as a stream that takes encoded frames (a call's own stream).
        var sink: (any SharedEncodingSink)?
        var render: (any AudioDeviceContext)?
    }
    private let contexts = Locked(Contexts())
    private let enabledFlag = Atomic<Bool>(true)
    /// Periods the clock thread skipped because a control thread held the contexts.
    let skippedPeriods = Atomic<Int>(0)

    let captureFormat: AudioFormat? = .voice
    let renderFormat: AudioFormat? = .voice
    /// What the participant's stream decodes: not the frames it announced quieter than the
    /// mixer's silence level, which the mixer would leave out anyway (unless the room decodes all).
    let receivedAudioDecoding: ReceivedAudioDecoding

    /// A port; `skipsAnnouncedSilence` lets its stream leave announced silence undecoded.
    init(skipsAnnouncedSilence: Bool = true) {
        receivedAudioDecoding = skipsAnnouncedSilence ? .skipsAnnouncedSilence(dBov: ConferenceMixer.announcedSilenceDBov) : .always
    }

    var isEnabled: Bool {
        get { enabledFlag.load(ordering: .relaxed) }
        set { enabledFlag.store(newValue, ordering: .relaxed) }
    }

    func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        contexts.withLock {
            $0.capture = context
            $0.sink = context as? any SharedEncodingSink
        }
    }

    func stopCapturing() {
        contexts.withLock {
            $0.capture = nil
            $0.sink = nil
        }
    }

    func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        contexts.withLock { $0.render = context }
    }

    func stopRendering() { contexts.withLock { $0.render = nil } }

    /// The participant's next 10 ms into `samples` (silence while nothing renders). Bridge thread.
    func pull(into samples: UnsafeMutableBufferPointer<Int16>) {
        let rendered = contexts.withLockIfAvailable { contexts -> Bool in
            guard let render = contexts.render else { return false }
            render.readRenderAudio(into: samples)
            return true
        }
        if rendered == nil { skippedPeriods.add(1, ordering: .relaxed) }
        if rendered != true || !isEnabled { samples.update(repeating: 0) }
    }

    /// Hands the participant's call a frame of what it hears. Bridge thread.
    func deliver(_ samples: UnsafeBufferPointer<Int16>) {
        let delivered = contexts.withLockIfAvailable { contexts -> Bool in
            contexts.capture?.deliverCapturedAudio(samples)
            return true
        }
        if delivered == nil { skippedPeriods.add(1, ordering: .relaxed) }
    }

    /// Hands the participant's call a frame encoded for it; false when its capture side takes
    /// no encoded frames (or not this one, or not now): deliver the samples instead. Bridge thread.
    func deliverEncoded(_ payload: UnsafeRawBufferPointer, samples: Int, peak: Int, level: UInt8) -> Bool {
        contexts.withLockIfAvailable { contexts -> Bool in
            contexts.sink?.deliverEncodedFrame(payload, samples: samples, peak: peak, level: level) ?? false
        } ?? false
    }

    /// The call's encoding and its version, when it changed since `version`. Bridge thread.
    func sharedEncoding(ifNewerThan version: Int) -> (key: SharedEncodingKey?, version: Int)? {
        contexts.withLockIfAvailable { contexts in
            contexts.sink?.sharedEncoding(ifNewerThan: version)
        } ?? nil
    }
}
