import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
/// ``MediaEncoder`` for Opus: 48 kHz mono straight into libopus.
final class OpusMediaEncoder: MediaEncoder {
    let codec: MediaCodec
    let ptime: Int
    let samplesPerFrame: Int
    let encoder: OpusEncoder
    private let dtx: Bool

    var rtpTimestampIncrement: Int { samplesPerFrame }
    var maxPayloadSize: Int { OpusEncoder.maxPacketSize }

    init(settings: OpusSettings, ptime: Int) throws(MediaCodecError) {
        guard MediaCodec.supportedPtimes.contains(ptime) else { throw .unsupportedPtime(ptime) }
        do {
            let enc = try OpusEncoder(sampleRate: MediaCodec.streamSampleRate, channels: 1, application: settings.application)
            try enc.setBitrate(settings.bitrate)
            try enc.setComplexity(settings.complexity)
            try enc.setBitrateMode(settings.bitrateMode)
            try enc.setInbandFEC(settings.fec)
            try enc.setPacketLossPercent(settings.packetLossPercent)
            try enc.setDTX(settings.dtx)
            try enc.setSignal(settings.signal)
            try enc.setMaxBandwidth(settings.maxBandwidth)
            encoder = enc
        } catch {
            throw .opus(error)
        }
        self.codec = .opus(settings)
        self.ptime = ptime
        self.samplesPerFrame = MediaCodec.streamSampleRate / 1000 * ptime
        self.dtx = settings.dtx
    }

    func encode(_ frame48k: UnsafeBufferPointer<Int16>, into out: UnsafeMutableRawBufferPointer) throws(MediaCodecError) -> Int {
        guard frame48k.count == samplesPerFrame else {
            throw .frameSizeMismatch(expected: samplesPerFrame, actual: frame48k.count)
        }
        let bytes: Int
        do { bytes = try encoder.encode(frame48k, into: out) } catch { throw .opus(error) }
        // RFC 7587 §3.1.3: with DTX, 1–2 byte packets carry no audio and need not be sent.
        return dtx && bytes <= 2 ? 0 : bytes
    }

    func setPacketLossPercent(_ p: Int) { try? encoder.setPacketLossPercent(min(max(p, 0), 100)) }
    func setFEC(_ on: Bool) { try? encoder.setInbandFEC(on) }
    func setBitrate(_ bps: Int) { try? encoder.setBitrate(min(max(bps, 6_000), 510_000)) }
}
