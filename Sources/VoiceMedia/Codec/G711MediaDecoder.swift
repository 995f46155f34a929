import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
/// ``MediaDecoder`` for G.711: companded bytes → 8 kHz → 48 kHz through a band-limited
/// ``Resampler``. Buffers are allocated once, at creation.
///
/// Concealment is deliberately simple: the last 10 ms decoded are played back and forth
/// (backwards first, so the waveform continues from the last sample heard, with no jump at the
/// turning points) under a linear fade that reaches silence 60 ms into a loss; the fade
/// restarts after the next good packet.
/// G.711 has no FEC.
final class G711MediaDecoder: MediaDecoder {
    let codec: MediaCodec
    var supportsFEC: Bool { false }
    private let law: G711.Law
    private let resampler: Resampler
    private let scratch: UnsafeMutableBufferPointer<Int16>
    /// The last 10 ms of 48 kHz output, oldest first.
    private let history: UnsafeMutableBufferPointer<Int16>
    /// 48 kHz samples concealed since the last good packet.
    private var concealed = 0

    /// Samples of history repeated by concealment (10 ms at 48 kHz).
    static let historyLength = 480
    /// Concealment fades to silence over this many 48 kHz samples (60 ms).
    static let fadeLength = 2_880
    private static let chunk = 480

    init(law: G711.Law, quality: Int = G711MediaEncoder.resamplerQuality) throws(MediaCodecError) {
        do {
            resampler = try Resampler(inputRate: 8_000, outputRate: MediaCodec.streamSampleRate, quality: quality)
        } catch {
            throw .resampler(error)
        }
        self.law = law
        self.codec = law == .ulaw ? .pcmu : .pcma
        self.scratch = .allocate(capacity: Self.chunk)
        scratch.initialize(repeating: 0)
        self.history = .allocate(capacity: Self.historyLength)
        history.initialize(repeating: 0)
    }

    deinit {
        scratch.deallocate()
        history.deallocate()
    }

    func duration(of payload: UnsafeRawBufferPointer) throws(MediaCodecError) -> Int {
        guard payload.count > 0 else { throw .invalidPayload }
        return payload.count
    }

    func decode(_ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        guard payload.count > 0 else { throw .invalidPayload }
        let needed = payload.count * 6
        guard pcm48k.count >= needed else { throw .bufferTooSmall(needed: needed, available: pcm48k.count) }
        var reader = ByteReader(payload)
        var written = 0
        while !reader.isAtEnd {
            let n = min(Self.chunk, reader.remaining)
            guard let bytes = try? reader.readBytes(n),
                let decoded = G711.decode(bytes, law: law, into: scratch)
            else { throw .invalidPayload }
            let out = UnsafeMutableBufferPointer(rebasing: pcm48k[written...])
            do {
                written += try resampler.process(UnsafeBufferPointer(rebasing: scratch[0..<decoded]), into: out).produced
            } catch {
                throw .resampler(error)
            }
        }
        remember(UnsafeBufferPointer(rebasing: pcm48k[0..<written]))
        concealed = 0
        return written
    }

    private func remember(_ samples: UnsafeBufferPointer<Int16>) {
        let tail = samples.suffix(Self.historyLength)
        let keep = Self.historyLength - tail.count
        // Slide the newest `keep` old samples to the front, then append the new tail.
        for i in 0..<keep { history[i] = history[i + tail.count] }
        var i = keep
        for s in tail {
            history[i] = s
            i += 1
        }
    }

    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        guard frames48k >= 0, frames48k <= pcm48k.count else {
            throw .bufferTooSmall(needed: frames48k, available: pcm48k.count)
        }
        for i in 0..<frames48k {
            let position = concealed + i
            let remaining = max(Self.fadeLength - position, 0)
            let phase = position % (2 * Self.historyLength)
            let index = phase < Self.historyLength ? Self.historyLength - 1 - phase : phase - Self.historyLength
            let sample = Int(history[index])
            pcm48k[i] = Int16(truncatingIfNeeded: sample * remaining / Self.fadeLength)
        }
        concealed += frames48k
        return frames48k
    }

    func decodeFEC(
        from nextPayload: UnsafeRawBufferPointer, frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>
    ) throws(MediaCodecError) -> Int? {
        nil
    }
}
