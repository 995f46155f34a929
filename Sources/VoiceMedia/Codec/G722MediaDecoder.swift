import CSpanDSP
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// ``MediaDecoder`` for G.722: spandsp's decoder (one byte → two 16 kHz samples), then 16 kHz →
/// 48 kHz through a band-limited ``Resampler``. A payload's duration in RTP ticks is its byte
/// count (RFC 3551's 8 kHz clock). Losses are concealed by ``FadingRepeatConcealment``; the
/// ADPCM state simply continues with the next packet, as in G.722's own decoder on a lost
/// frame. G.722 has no FEC. Buffers and codec state are allocated once, at creation.
final class G722MediaDecoder: MediaDecoder {
    let codec = MediaCodec.g722
    var supportsFEC: Bool { false }
    private let resampler: Resampler
    private let state: OpaquePointer
    private let scratch: UnsafeMutableBufferPointer<Int16>
    private let concealment = FadingRepeatConcealment()
    /// Payload bytes decoded at a time: 10 ms.
    private static let chunk = 80

    init(quality: Int = G711MediaEncoder.resamplerQuality) throws(MediaCodecError) {
        do {
            resampler = try Resampler(inputRate: G722MediaEncoder.sampleRate, outputRate: MediaCodec.streamSampleRate, quality: quality)
        } catch {
            throw .resampler(error)
        }
        guard let state = g722_decode_init(nil, Int32(G722MediaEncoder.bitRate), 0) else {
            throw .library(name: "spandsp", code: -1, message: "the G.722 decoder could not be created")
        }
        self.state = state
        self.scratch = .allocate(capacity: 2 * Self.chunk)
        scratch.initialize(repeating: 0)
    }

    deinit {
        g722_decode_free(state)
        scratch.deallocate()
    }

    func duration(of payload: UnsafeRawBufferPointer) throws(MediaCodecError) -> Int {
        guard payload.count > 0 else { throw .invalidPayload }
        return payload.count
    }

    func decode(_ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int {
        guard payload.count > 0 else { throw .invalidPayload }
        let needed = payload.count * 6
        guard pcm48k.count >= needed else { throw .bufferTooSmall(needed: needed, available: pcm48k.count) }
        guard let samples = scratch.baseAddress else { throw .invalidPayload }
        var reader = ByteReader(payload)
        var written = 0
        while !reader.isAtEnd {
            let n = min(Self.chunk, reader.remaining)
            guard let bytes = try? reader.readBytes(n), let base = bytes.baseAddress else { throw .invalidPayload }
            let decoded = Int(g722_decode(state, samples, base.assumingMemoryBound(to: UInt8.self), Int32(n)))
            guard decoded > 0, decoded <= scratch.count else { throw .invalidPayload }
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
