import CSpanDSP
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// ``MediaDecoder`` for G.722: spandsp's decoder (one byte → two 16 kHz samples), then 16 kHz →
/// 48 kHz through a band-limited ``Resampler`` (``ResamplingDecoderCore``). A payload's
/// duration in RTP ticks is its byte count (RFC 3551's 8 kHz clock). Losses are concealed by
/// ``FadingRepeatConcealment``; the ADPCM state simply continues with the next packet, as in
/// G.722's own decoder on a lost frame. G.722 has no FEC. Codec state is allocated once.
final class G722MediaDecoder: MediaDecoder {
    let codec = MediaCodec.g722
    var supportsFEC: Bool { false }
    private let state: OpaquePointer
    private let core: ResamplingDecoderCore

    init(quality: Int = G711MediaEncoder.resamplerQuality) throws(MediaCodecError) {
        // 10 ms of payload at a time.
        core = try ResamplingDecoderCore(rate: G722MediaEncoder.sampleRate, chunk: 80, samplesPerByte: 2, quality: quality)
        guard let state = g722_decode_init(nil, Int32(G722MediaEncoder.bitRate), 0) else {
            throw .library(name: "spandsp", code: -1, message: "the G.722 decoder could not be created")
        }
        self.state = state
    }

    deinit { g722_decode_free(state) }

    func duration(of payload: UnsafeRawBufferPointer) throws(MediaCodecError) -> Int {
        guard payload.count > 0 else { throw .invalidPayload }
        return payload.count
    }

    func decode(_ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        let state = self.state
        return try core.decode(payload, into: pcm48k) { bytes, scratch in
            guard let input = bytes.baseAddress, let output = scratch.baseAddress else { return nil }
            return Int(g722_decode(state, output, input.assumingMemoryBound(to: UInt8.self), Int32(bytes.count)))
        }
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
