import CSpanDSP
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// ``MediaEncoder`` for G.722 at 64 kbit/s: 48 kHz → 16 kHz through a band-limited
/// ``Resampler`` (its passband reaches 7 kHz, G.722's top), then spandsp's sub-band ADPCM
/// encoder: 320 samples → 160 bytes per 20 ms. The RTP timestamp advances by 8 000 per second
/// (RFC 3551's clock for G.722), one tick per byte. Buffers and codec state are allocated once,
/// at creation.
final class G722MediaEncoder: MediaEncoder {
    let codec = MediaCodec.g722
    let ptime: Int
    let samplesPerFrame: Int
    let rtpTimestampIncrement: Int
    private let resampler: Resampler
    private let state: OpaquePointer
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// The codec's sample rate (the RTP clock is half of it).
    static let sampleRate = 16_000
    /// The only bit rate offered: mode 1 of G.722, which RFC 3551's payload type 9 means.
    static let bitRate = 64_000

    var maxPayloadSize: Int { rtpTimestampIncrement }

    init(ptime: Int, quality: Int = G711MediaEncoder.resamplerQuality) throws(MediaCodecError) {
        guard MediaCodec.supportedPtimes.contains(ptime) else { throw .unsupportedPtime(ptime) }
        do {
            resampler = try Resampler(inputRate: MediaCodec.streamSampleRate, outputRate: Self.sampleRate, quality: quality)
        } catch {
            throw .resampler(error)
        }
        guard let state = g722_encode_init(nil, Int32(Self.bitRate), 0) else { throw .library(name: "spandsp", code: -1, message: "the G.722 encoder could not be created") }
        self.state = state
        self.ptime = ptime
        self.samplesPerFrame = MediaCodec.streamSampleRate / 1000 * ptime
        self.rtpTimestampIncrement = 8 * ptime
        self.scratch = .allocate(capacity: 16 * ptime)
        scratch.initialize(repeating: 0)
    }

    deinit {
        g722_encode_free(state)
        scratch.deallocate()
    }

    func encode(_ frame48k: UnsafeBufferPointer<Int16>, into out: UnsafeMutableRawBufferPointer) throws(MediaCodecError) -> Int {
        guard frame48k.count == samplesPerFrame else {
            throw .frameSizeMismatch(expected: samplesPerFrame, actual: frame48k.count)
        }
        guard out.count >= rtpTimestampIncrement, let bytes = out.baseAddress else {
            throw .bufferTooSmall(needed: rtpTimestampIncrement, available: out.count)
        }
        let produced: Int
        do { produced = try resampler.process(frame48k, into: scratch).produced } catch { throw .resampler(error) }
        guard let samples = scratch.baseAddress else { return 0 }
        let written = g722_encode(state, bytes.assumingMemoryBound(to: UInt8.self), samples, Int32(produced))
        return Int(max(0, written))
    }

    func setPacketLossPercent(_ p: Int) {}
    func setFEC(_ on: Bool) {}
    func setBitrate(_ bps: Int) {}
}
