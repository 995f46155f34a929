import Synchronization
import VoiceMedia
import VoiceSupport

/// A participant's place on a conference bridge, seen by its call as an audio device
/// (48 kHz mono, 10 ms): what the call plays (the participant's decoded voice) goes into the
/// mix; what the call captures (and encodes for the participant) is the mix of the others.
///
/// The bridge's clock thread drives both directions (``ConferenceBridge``): no thread of its
/// own. Threading: the contexts are swapped under a lock the bridge holds while it calls them,
/// so `stop*` returns only once no call into the old context can run.
final class ConferencePort: AudioDevice, @unchecked Sendable {
    // @unchecked: `contexts` is behind its lock.
    private struct Contexts {
        var capture: (any AudioDeviceContext)?
        var render: (any AudioDeviceContext)?
        /// Nothing delivered to `capture` yet.
        var captureIsNew = false
    }
    private let contexts = Locked(Contexts())
    private let enabledFlag = Atomic<Bool>(true)

    let captureFormat: AudioFormat? = .voice
    let renderFormat: AudioFormat? = .voice

    var isEnabled: Bool {
        get { enabledFlag.load(ordering: .relaxed) }
        set { enabledFlag.store(newValue, ordering: .relaxed) }
    }

    func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        contexts.withLock {
            $0.capture = context
            $0.captureIsNew = true
        }
    }

    func stopCapturing() { contexts.withLock { $0.capture = nil } }

    func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        contexts.withLock { $0.render = context }
    }

    func stopRendering() { contexts.withLock { $0.render = nil } }

    /// The participant's next 10 ms into `samples` (silence while nothing renders). Bridge thread.
    func pull(into samples: UnsafeMutableBufferPointer<Int16>) {
        let rendered = contexts.withLock { contexts -> Bool in
            guard let render = contexts.render else { return false }
            render.readRenderAudio(into: samples)
            return true
        }
        if !rendered || !isEnabled { samples.update(repeating: 0) }
    }

    /// Hands the participant what it hears this period (`silence` while disabled). Bridge thread.
    ///
    /// A new capture context gets its first period only where `mayStart` says: its stream
    /// encodes a 20 ms frame every second period from its first, so the bridge picks which of
    /// the two periods its frames end on (the period before is not missed: nothing was heard yet).
    func push(_ samples: UnsafeBufferPointer<Int16>, silence: UnsafeBufferPointer<Int16>, mayStart: Bool) {
        let enabled = isEnabled
        contexts.withLock { contexts in
            guard let capture = contexts.capture, mayStart || !contexts.captureIsNew else { return }
            contexts.captureIsNew = false
            capture.deliverCapturedAudio(enabled ? samples : silence)
        }
    }
}
