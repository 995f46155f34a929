import Synchronization
import VoiceMedia
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// Opus frames encoded once, replayed by many load-generator participants.
final class PreEncodedSpeech: Sendable {
    /// 20 ms frames of speech, and one of silence; each with its peak sample.
    let speech: [(payload: [UInt8], peak: Int, level: UInt8)]
    let silence: (payload: [UInt8], peak: Int, level: UInt8)

    /// Encodes `samples` (48 kHz) with `key`'s encoder, once.
    init(_ samples: [Int16], key: SharedEncodingKey) throws {
        let encoder = try key.makeEncoder()
        var out = [UInt8](repeating: 0, count: encoder.maxPayloadSize)
        func encode(_ frame: ArraySlice<Int16>) throws -> (payload: [UInt8], peak: Int, level: UInt8) {
            let n = try frame.withUnsafeBufferPointer { f in try out.withUnsafeMutableBytes { try encoder.encode(f, into: $0) } }
            return frame.withUnsafeBufferPointer { (Array(out[0..<n]), AudioFrameLevel.peak($0), AudioFrameLevel.dBov($0)) }
        }
        let frames = samples.count / 960
        speech = try (0..<frames).map { try encode(samples[($0 * 960)..<(($0 + 1) * 960)]) }
        silence = try encode(ArraySlice(repeating: 0, count: 960))
    }
}

/// A load-generator participant's device: every 20 ms it hands its call's stream a frame
/// encoded in advance (speech for a talker, silence for the rest), which the stream sends with
/// its own RTP header and SRTP, so the participant costs no encode. It renders nothing, and
/// unless `decodes` its stream decodes nothing it receives (it still checks every packet).
final class EncodedReplayDevice: DedicatedAudioDevice, SoftwareAudioClockClient, @unchecked Sendable {
    // @unchecked: `sink` is behind its lock; the rest is the clock thread's (one tick at a time).
    let captureFormat: AudioFormat? = .voice
    let renderFormat: AudioFormat? = nil
    let receivedAudioDecoding: ReceivedAudioDecoding
    private let frames: PreEncodedSpeech
    private let talks: Bool
    private var next: Int
    private var schedule = PacingSchedule(bufferDuration: .milliseconds(20), maxCatchUp: 3)
    private let sink = Locked<(any SharedEncodingSink)?>(nil)
    private let registration = Locked<SoftwareAudioClock.Registration?>(nil)
    private let enabled = Atomic<Bool>(true)
    /// Frames the stream did not take.
    let refused = Atomic<Int>(0)

    init(frames: PreEncodedSpeech, talks: Bool, offset: Int, decodes: Bool) {
        self.frames = frames
        self.talks = talks
        next = offset
        receivedAudioDecoding = decodes ? .always : .never
    }

    var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        sink.withLock { $0 = context as? any SharedEncodingSink }
        let clock = SoftwareAudioClock.shared
        let made = try clock.register(self, phase: clock.nextPhase())
        registration.withLock { $0 = made }
    }

    func stopCapturing() {
        if let made = registration.withLock({ r -> SoftwareAudioClock.Registration? in defer { r = nil }; return r }) {
            SoftwareAudioClock.shared.unregister(made)
        }
        sink.withLock { $0 = nil }
    }

    func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {}
    func stopRendering() {}

    func clockDidTick(at time: MediaTime) {
        for _ in 0..<schedule.buffersDue(at: time) {
            let frame = talks ? frames.speech[next % frames.speech.count] : frames.silence
            next &+= 1
            let taken = frame.payload.withUnsafeBytes { payload in
                sink.withLockIfAvailable { $0?.deliverEncodedFrame(payload, samples: 960, peak: frame.peak, level: frame.level) ?? false } ?? false
            }
            if !taken { refused.add(1, ordering: .relaxed) }
        }
    }
}
