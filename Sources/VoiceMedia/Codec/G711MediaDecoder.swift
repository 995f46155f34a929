import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
/// ``MediaDecoder`` for G.711: companded bytes → 8 kHz → 48 kHz through a band-limited
/// ``Resampler`` (``ResamplingDecoderCore``). Losses are concealed by
/// ``FadingRepeatConcealment``; G.711 has no FEC.
final class G711MediaDecoder: MediaDecoder {
    let codec: MediaCodec
    var supportsFEC: Bool { false }
    private let law: G711.Law
    private let core: ResamplingDecoderCore

    init(law: G711.Law, quality: Int = G711MediaEncoder.resamplerQuality) throws(MediaCodecError) {
        core = try ResamplingDecoderCore(rate: 8_000, chunk: 480, samplesPerByte: 1, quality: quality)
        self.law = law
        self.codec = law == .ulaw ? .pcmu : .pcma
    }

    func duration(of payload: UnsafeRawBufferPointer) throws(MediaCodecError) -> Int {
        guard payload.count > 0 else { throw .invalidPayload }
        return payload.count
    }

    func decode(_ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        let law = self.law
        return try core.decode(payload, into: pcm48k) { bytes, scratch in G711.decode(bytes, law: law, into: scratch) }
    }

    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        try core.conceal(frames48k: frames48k, into: pcm48k)
    }

    func decodeFEC(
        from nextPayload: UnsafeRawBufferPointer, frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>
    ) throws(MediaCodecError) -> Int? {
        nil
    }
}
