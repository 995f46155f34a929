import COpus
import VoiceSupport
import CVoiceShims

/// A libopus decoder with a typed Swift API, including packet-loss concealment and in-band FEC.
///
/// Output is 8, 12, 16, 24 or 48 kHz, mono or stereo interleaved, whatever the packet was
/// encoded at.
///
/// Threading: not thread-safe. Use one decoder from one thread (the media receive path); it is
/// deliberately not `Sendable`.
package final class OpusDecoder {
    /// Output sample rate in Hz.
    package let sampleRate: Int
    /// Interleaved output channels (1 or 2).
    package let channels: Int
    let state: OpaquePointer

    /// Samples per channel in 120 ms, the longest a packet can last: a safe output size.
    package var maxFrameSize: Int { sampleRate / 1000 * 120 }

    /// Creates a decoder.
    /// - Parameters:
    ///   - sampleRate: one of ``OpusEncoder/supportedSampleRates``; 48 kHz by default.
    ///   - channels: 1 (default) or 2.
    /// - Throws: ``OpusError/badArgument`` for an unsupported rate or channel count.
    package init(sampleRate: Int = 48_000, channels: Int = 1) throws(OpusError) {
        guard OpusEncoder.supportedSampleRates.contains(sampleRate), channels == 1 || channels == 2 else {
            throw .badArgument
        }
        var rc: Int32 = OPUS_OK
        guard let st = opus_decoder_create(Int32(sampleRate), Int32(channels), &rc) else {
            throw OpusError(code: rc == OPUS_OK ? OPUS_ALLOC_FAIL : rc)
        }
        _ = try OpusError.check(rc)
        self.state = st
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { opus_decoder_destroy(state) }

    /// Decodes one packet. Hot path: allocates nothing.
    /// - Parameters:
    ///   - packet: one Opus packet (an RTP payload); must not be empty.
    ///   - pcm: room for the decoded interleaved samples; `pcm.count / channels` must cover the
    ///     packet's duration (``maxFrameSize`` always does).
    /// - Returns: samples per channel written.
    /// - Throws: ``OpusError/invalidPacket`` for empty or corrupt data,
    ///   ``OpusError/bufferTooSmall`` when `pcm` is too short.
    package func decode(_ packet: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int {
        guard packet.count > 0, let data = packet.baseAddress else { throw .invalidPacket }
        return try run(data, Int32(clamping: packet.count), pcm, frames: pcm.count / channels, fec: false)
    }

    /// Conceals `frames` samples per channel of lost audio (libopus PLC, decoding NULL data).
    /// Hot path: allocates nothing.
    /// - Parameters:
    ///   - frames: duration to fill, a multiple of 2.5 ms; usually the lost packet's duration.
    ///   - pcm: room for at least `frames * channels` samples.
    /// - Returns: samples per channel written (equal to `frames`).
    package func decodeMissing(frames: Int, into pcm: UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int {
        guard frames > 0 else { throw .badArgument }
        guard frames * channels <= pcm.count else { throw .bufferTooSmall }
        return try run(nil, 0, pcm, frames: frames, fec: false)
    }

    /// Recovers a lost packet from the forward-error-correction data carried in the packet
    /// that FOLLOWS it (`decode_fec = 1`). Call it for the lost packet, then decode
    /// `nextPacket` normally. When `nextPacket` carries no FEC, libopus falls back to PLC.
    /// Hot path: allocates nothing.
    /// - Parameters:
    ///   - nextPacket: the packet received after the gap.
    ///   - frames: duration of the lost packet, samples per channel (multiple of 2.5 ms).
    ///   - pcm: room for at least `frames * channels` samples.
    /// - Returns: samples per channel written (equal to `frames`).
    package func decodeFEC(
        from nextPacket: UnsafeRawBufferPointer, frames: Int, into pcm: UnsafeMutableBufferPointer<Int16>
    ) throws(OpusError) -> Int {
        guard nextPacket.count > 0, let data = nextPacket.baseAddress else { throw .invalidPacket }
        guard frames > 0 else { throw .badArgument }
        guard frames * channels <= pcm.count else { throw .bufferTooSmall }
        return try run(data, Int32(clamping: nextPacket.count), pcm, frames: frames, fec: true)
    }

    private func run(
        _ data: UnsafeRawPointer?, _ length: Int32, _ pcm: UnsafeMutableBufferPointer<Int16>, frames: Int, fec: Bool
    ) throws(OpusError) -> Int {
        guard frames > 0, let out = pcm.baseAddress else { throw .bufferTooSmall }
        let bytes = data?.assumingMemoryBound(to: UInt8.self)
        return try OpusError.check(opus_decode(state, bytes, length, out, Int32(clamping: frames), fec ? 1 : 0))
    }

    /// The number of samples per channel in `packet` at `sampleRate`, read from its TOC and
    /// frame-count bytes (`opus_packet_get_nb_samples`). Allocates nothing.
    /// - Throws: ``OpusError/invalidPacket`` for an empty or malformed packet,
    ///   ``OpusError/badArgument`` for an unsupported rate.
    package static func sampleCount(of packet: UnsafeRawBufferPointer, sampleRate: Int) throws(OpusError) -> Int {
        guard OpusEncoder.supportedSampleRates.contains(sampleRate) else { throw .badArgument }
        guard packet.count > 0, let data = packet.baseAddress else { throw .invalidPacket }
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        let n = try OpusError.check(opus_packet_get_nb_samples(bytes, Int32(clamping: packet.count), Int32(sampleRate)))
        // RFC 6716 §3.2.5: a packet never lasts more than 120 ms.
        guard n > 0, n <= sampleRate / 1000 * 120 else { throw .invalidPacket }
        return n
    }

    /// Clears the decoder's history (as after creation).
    package func reset() throws(OpusError) {
        _ = try OpusError.check(voice_opus_decoder_reset_state(state))
    }

    private func get(_ getter: (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32) throws(OpusError) -> Int32 {
        var value: Int32 = 0
        _ = try OpusError.check(getter(state, &value))
        return value
    }

    /// Samples per channel of the last decoded or concealed packet (`OPUS_GET_LAST_PACKET_DURATION`).
    package var lastPacketDuration: Int {
        get throws(OpusError) { Int(try get(voice_opus_decoder_get_last_packet_duration)) }
    }

    /// Pitch period of the last decoded frame in samples, or 0 when unvoiced (`OPUS_GET_PITCH`).
    package var pitch: Int { get throws(OpusError) { Int(try get(voice_opus_decoder_get_pitch)) } }

    /// The range decoder's final state after the last packet (`OPUS_GET_FINAL_RANGE`).
    package var finalRange: UInt32 {
        get throws(OpusError) {
            var value: UInt32 = 0
            _ = try OpusError.check(voice_opus_decoder_get_final_range(state, &value))
            return value
        }
    }

    /// Output gain in Q8 dB units (256 = +1 dB), -32768...32767.
    package func setGain(q8dB: Int) throws(OpusError) {
        guard (-32_768...32_767).contains(q8dB) else { throw .badArgument }
        _ = try OpusError.check(voice_opus_decoder_set_gain(state, Int32(q8dB)))
    }

    /// The current output gain in Q8 dB (`OPUS_GET_GAIN`).
    package var gainQ8dB: Int { get throws(OpusError) { Int(try get(voice_opus_decoder_get_gain)) } }
}

@available(*, unavailable)
extension OpusDecoder: Sendable {}
