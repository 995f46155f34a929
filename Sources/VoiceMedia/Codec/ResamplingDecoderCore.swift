import VoiceBytes
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// What the decoders of the codecs that run below 48 kHz and have no concealment of their own
/// (G.711, G.722) share: a payload decoded chunk by chunk into a scratch buffer at the codec's
/// rate, each chunk resampled up to 48 kHz, the tail remembered for ``FadingRepeatConcealment``.
/// Buffers are allocated once, at creation.
final class ResamplingDecoderCore {
    /// Payload bytes decoded at a time.
    let chunk: Int
    /// Codec-rate samples one payload byte decodes to (G.711: 1, G.722: 2).
    let samplesPerByte: Int
    private let resampler: Resampler
    private let scratch: UnsafeMutableBufferPointer<Int16>
    private let concealment = FadingRepeatConcealment()

    init(rate: Int, chunk: Int, samplesPerByte: Int, quality: Int) throws(MediaCodecError) {
        do {
            resampler = try Resampler(inputRate: rate, outputRate: MediaCodec.streamSampleRate, quality: quality)
        } catch {
            throw .resampler(error)
        }
        self.chunk = chunk
        self.samplesPerByte = samplesPerByte
        scratch = .allocate(capacity: chunk * samplesPerByte)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    /// 48 kHz samples per payload byte.
    private var outputPerByte: Int { MediaCodec.streamSampleRate / resampler.inputRate * samplesPerByte }

    /// Decodes `payload` into `pcm48k`: `decodeChunk` turns up to ``chunk`` bytes into samples
    /// at the codec's rate in the scratch buffer it is given and returns how many.
    func decode(
        _ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>,
        decodeChunk: (UnsafeRawBufferPointer, UnsafeMutableBufferPointer<Int16>) -> Int?
    ) throws(MediaCodecError) -> Int {
        guard payload.count > 0 else { throw .invalidPayload }
        let needed = payload.count * outputPerByte
        guard pcm48k.count >= needed else { throw .bufferTooSmall(needed: needed, available: pcm48k.count) }
        var reader = ByteReader(payload)
        var written = 0
        while !reader.isAtEnd {
            let n = min(chunk, reader.remaining)
            guard let bytes = try? reader.readBytes(n), let decoded = decodeChunk(bytes, scratch), decoded > 0, decoded <= scratch.count
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

    /// Fills `frames48k` samples for a lost packet (``FadingRepeatConcealment``).
    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        guard frames48k >= 0, frames48k <= pcm48k.count else {
            throw .bufferTooSmall(needed: frames48k, available: pcm48k.count)
        }
        concealment.conceal(frames48k: frames48k, into: pcm48k)
        return frames48k
    }
}
