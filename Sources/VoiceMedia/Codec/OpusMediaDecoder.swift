import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
/// ``MediaDecoder`` for Opus: libopus decodes straight to 48 kHz mono, with libopus PLC and FEC.
final class OpusMediaDecoder: MediaDecoder {
    let codec: MediaCodec
    let decoder: OpusDecoder
    var supportsFEC: Bool { true }

    init(codec: MediaCodec) throws(MediaCodecError) {
        do { decoder = try OpusDecoder(sampleRate: MediaCodec.streamSampleRate, channels: 1) } catch { throw .opus(error) }
        self.codec = codec
    }

    func duration(of payload: UnsafeRawBufferPointer) throws(MediaCodecError) -> Int {
        do { return try OpusDecoder.sampleCount(of: payload, sampleRate: MediaCodec.streamSampleRate) } catch { throw .opus(error) }
    }

    func decode(_ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        do { return try decoder.decode(payload, into: pcm48k) } catch { throw .opus(error) }
    }

    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        guard frames48k <= pcm48k.count else { throw .bufferTooSmall(needed: frames48k, available: pcm48k.count) }
        do { return try decoder.decodeMissing(frames: frames48k, into: pcm48k) } catch { throw .opus(error) }
    }

    func decodeFEC(
        from nextPayload: UnsafeRawBufferPointer, frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>
    ) throws(MediaCodecError) -> Int? {
        guard frames48k <= pcm48k.count else { throw .bufferTooSmall(needed: frames48k, available: pcm48k.count) }
        do { return try decoder.decodeFEC(from: nextPayload, frames: frames48k, into: pcm48k) } catch { throw .opus(error) }
    }
}
