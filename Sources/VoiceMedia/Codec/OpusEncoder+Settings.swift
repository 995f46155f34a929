import COpus
import VoiceSupport
import CVoiceShims
import VoiceMediaTypes

extension OpusEncoder {

    func get(_ getter: (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32) throws(OpusError) -> Int32 {
        var value: Int32 = 0
        _ = try OpusError.check(getter(state, &value))
        return value
    }

    func set(_ setter: (OpaquePointer?, Int32) -> Int32, _ value: Int32) throws(OpusError) {
        _ = try OpusError.check(setter(state, value))
    }

    /// Target bitrate in bits per second (libopus clamps to 500...512 000 per stream).
    /// Safe to change while running.
    package func setBitrate(_ bitsPerSecond: Int) throws(OpusError) {
        guard bitsPerSecond > 0 else { throw .badArgument }
        try set(voice_opus_encoder_set_bitrate, Int32(clamping: bitsPerSecond))
    }

    /// The current target bitrate in bits per second (`OPUS_GET_BITRATE`).
    package var bitrate: Int { get throws(OpusError) { Int(try get(voice_opus_encoder_get_bitrate)) } }

    /// Chooses CBR, VBR or constrained VBR. Safe to change while running.
    package func setBitrateMode(_ mode: OpusBitrateMode) throws(OpusError) {
        try set(voice_opus_encoder_set_vbr, mode == .cbr ? 0 : 1)
        try set(voice_opus_encoder_set_vbr_constraint, mode == .constrainedVBR ? 1 : 0)
    }

    /// The current bitrate mode (`OPUS_GET_VBR` and `OPUS_GET_VBR_CONSTRAINT`).
    package var bitrateMode: OpusBitrateMode {
        get throws(OpusError) {
            if try get(voice_opus_encoder_get_vbr) == 0 { return .cbr }
            return try get(voice_opus_encoder_get_vbr_constraint) == 0 ? .vbr : .constrainedVBR
        }
    }

    /// Computational complexity, 0 (fastest) to 10 (best quality).
    /// - Throws: ``OpusError/badArgument`` outside 0...10.
    package func setComplexity(_ complexity: Int) throws(OpusError) {
        guard (0...10).contains(complexity) else { throw .badArgument }
        try set(voice_opus_encoder_set_complexity, Int32(complexity))
    }

    /// The current complexity (`OPUS_GET_COMPLEXITY`).
    package var complexity: Int { get throws(OpusError) { Int(try get(voice_opus_encoder_get_complexity)) } }

    /// Turns in-band forward error correction (SILK LBRR) on or off. Safe to change while running;
    /// it only takes effect with a non-zero ``setPacketLossPercent(_:)`` hint.
    package func setInbandFEC(_ enabled: Bool) throws(OpusError) {
        try set(voice_opus_encoder_set_inband_fec, enabled ? 1 : 0)
    }

    /// Whether in-band FEC is on (`OPUS_GET_INBAND_FEC`).
    package var inbandFEC: Bool { get throws(OpusError) { try get(voice_opus_encoder_get_inband_fec) != 0 } }

    /// The expected packet loss, 0...100 %, which tunes FEC and mode decisions.
    /// Safe to change while running (the stream feeds it from RTCP reports).
    /// - Throws: ``OpusError/badArgument`` outside 0...100.
    package func setPacketLossPercent(_ percent: Int) throws(OpusError) {
        guard (0...100).contains(percent) else { throw .badArgument }
        try set(voice_opus_encoder_set_packet_loss_perc, Int32(percent))
    }

    /// The current packet-loss hint (`OPUS_GET_PACKET_LOSS_PERC`).
    package var packetLossPercent: Int {
        get throws(OpusError) { Int(try get(voice_opus_encoder_get_packet_loss_perc)) }
    }

    /// Turns discontinuous transmission on or off: during silence the encoder emits 1–2 byte
    /// packets that need not be sent.
    package func setDTX(_ enabled: Bool) throws(OpusError) {
        try set(voice_opus_encoder_set_dtx, enabled ? 1 : 0)
    }

    /// Whether DTX is on (`OPUS_GET_DTX`).
    package var dtx: Bool { get throws(OpusError) { try get(voice_opus_encoder_get_dtx) != 0 } }

    /// True while the last encoded frame was a DTX (silence) frame (`OPUS_GET_IN_DTX`).
    package var isInDTX: Bool { get throws(OpusError) { try get(voice_opus_encoder_get_in_dtx) != 0 } }

    /// Changes the coding mode. libopus allows this only before the first frame is encoded.
    package func setApplication(_ application: OpusApplication) throws(OpusError) {
        try set(voice_opus_encoder_set_application, application.rawOpusValue)
    }

    /// The current coding mode (`OPUS_GET_APPLICATION`).
    package var application: OpusApplication {
        get throws(OpusError) {
            guard let app = OpusApplication(rawOpusValue: try get(voice_opus_encoder_get_application)) else {
                throw .internalError
            }
            return app
        }
    }

    /// Hints what the input is (speech, music, or let the encoder decide).
    package func setSignal(_ signal: OpusSignal) throws(OpusError) {
        try set(voice_opus_encoder_set_signal, signal.rawOpusValue)
    }

    /// The current signal hint (`OPUS_GET_SIGNAL`).
    package var signal: OpusSignal {
        get throws(OpusError) {
            guard let s = OpusSignal(rawOpusValue: try get(voice_opus_encoder_get_signal)) else { throw .internalError }
            return s
        }
    }

    /// Caps the coded audio bandwidth.
    package func setMaxBandwidth(_ bandwidth: OpusBandwidth) throws(OpusError) {
        try set(voice_opus_encoder_set_max_bandwidth, bandwidth.rawOpusValue)
    }

    /// The current bandwidth cap (`OPUS_GET_MAX_BANDWIDTH`).
    package var maxBandwidth: OpusBandwidth {
        get throws(OpusError) {
            guard let b = OpusBandwidth(rawOpusValue: try get(voice_opus_encoder_get_max_bandwidth)) else {
                throw .internalError
            }
            return b
        }
    }

    /// Samples per channel of look-ahead (`OPUS_GET_LOOKAHEAD`): the encode-then-decode delay.
    package var lookahead: Int { get throws(OpusError) { Int(try get(voice_opus_encoder_get_lookahead)) } }

    /// The range coder's final state after the last packet (`OPUS_GET_FINAL_RANGE`); equal on
    /// encoder and decoder when a packet was decoded bit-exactly.
    package var finalRange: UInt32 {
        get throws(OpusError) {
            var value: UInt32 = 0
            _ = try OpusError.check(voice_opus_encoder_get_final_range(state, &value))
            return value
        }
    }
}
