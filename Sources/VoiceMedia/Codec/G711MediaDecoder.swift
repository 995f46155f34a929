import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
/// ``MediaDecoder`` for G.711: companded bytes → 8 kHz → 48 kHz through a band-limited
/// ``Resampler``. Buffers are allocated once, at creation. Losses are concealed by
/// ``FadingRepeatConcealment``; G.711 has no FEC.
final class G711MediaDecoder: MediaDecoder {
    let codec: MediaCodec
    var supportsFEC: Bool { false }
    private let law: G711.Law
    private let resampler: Resampler
    private let scratch: UnsafeMutableBufferPointer<Int16>
    private let concealment = FadingRepeatConcealment()
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
    }

    deinit { scratch.deallocate() }

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
        concealment.remember(UnsafeBufferPointer(rebasing: pcm48k[0..<written]))
        return written
    }

    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        guard frames48k >= 0, frames48k <= pcm48k.count else {
            throw .bufferTooSmall(needed: frames48k, available: pcm48k.count)
        }
        concealment.conceal(frames48k: frames48k, into: pcm48k)
        return frames48k
    }

    func decodeFEC(
        from nextPayload: UnsafeRawBufferPointer, frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>
    ) throws(MediaCodecError) -> Int? {
        nil
    }
}
