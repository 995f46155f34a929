import COpus
import VoiceSupport
import CVoiceShims
import VoiceMediaTypes

/// A libopus encoder with a typed Swift API.
///
/// Accepts 8, 12, 16, 24 or 48 kHz input, mono or stereo interleaved, in frames of 10, 20, 40
/// or 60 ms. Every setting can be changed between ``encode(_:into:)`` calls while a stream runs.
///
/// Threading: not thread-safe. Use one encoder from one thread (the media send path); it is
/// deliberately not `Sendable`.
package final class OpusEncoder {
    /// Input sample rate in Hz.
    package let sampleRate: Int
    /// Interleaved channels (1 or 2).
    package let channels: Int
    let state: OpaquePointer

    /// The sample rates libopus accepts.
    package static let supportedSampleRates: Set<Int> = [8_000, 12_000, 16_000, 24_000, 48_000]
    /// The frame durations, in milliseconds, this API accepts.
    package static let supportedFrameDurations: [Int] = [10, 20, 40, 60]
    /// The largest packet libopus can produce (RFC 6716: 1275 bytes per frame, 3 frames plus
    /// framing for 60 ms); a safe size for an output buffer.
    package static let maxPacketSize = 4_000

    /// Creates an encoder.
    /// - Parameters:
    ///   - sampleRate: one of ``supportedSampleRates``; 48 kHz by default.
    ///   - channels: 1 (default) or 2.
    ///   - application: the coding mode; ``OpusApplication/voip`` by default.
    /// - Throws: ``OpusError/badArgument`` for an unsupported rate or channel count.
    package init(sampleRate: Int = 48_000, channels: Int = 1, application: OpusApplication = .voip) throws(OpusError) {
        guard Self.supportedSampleRates.contains(sampleRate), channels == 1 || channels == 2 else {
            throw .badArgument
        }
        var rc: Int32 = OPUS_OK
        guard let st = opus_encoder_create(Int32(sampleRate), Int32(channels), application.rawOpusValue, &rc) else {
            throw OpusError(code: rc == OPUS_OK ? OPUS_ALLOC_FAIL : rc)
        }
        _ = try OpusError.check(rc)
        self.state = st
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { opus_encoder_destroy(state) }

    /// Samples per channel in one frame of `milliseconds` at this encoder's rate, or nil when
    /// the duration is not one of ``supportedFrameDurations``.
    package func frameSize(milliseconds: Int) -> Int? {
        Self.supportedFrameDurations.contains(milliseconds) ? sampleRate / 1000 * milliseconds : nil
    }

    /// True when `frameSize` samples per channel is 10, 20, 40 or 60 ms at `sampleRate`.

    static func isSupportedFrameSize(_ frameSize: Int, sampleRate: Int) -> Bool {
        let tenths = frameSize * 100
        guard frameSize > 0, tenths % sampleRate == 0 else { return false }
        switch tenths / sampleRate {
        case 1, 2, 4, 6: return true
        default: return false
        }
    }

    /// Encodes one frame. Hot path: allocates nothing.
    /// - Parameters:
    ///   - pcm: interleaved samples; `pcm.count / channels` is the frame size and must be
    ///     10, 20, 40 or 60 ms at ``sampleRate``.
    ///   - out: where the packet is written; ``maxPacketSize`` bytes is always enough.
    /// - Returns: the packet length in bytes. With DTX on, 1–2 byte packets mean "silence, no
    ///   need to transmit" (RFC 7587 §3.1.3).
    /// - Throws: ``OpusError/badArgument`` for an unsupported frame size,
    ///   ``OpusError/bufferTooSmall`` when `out` cannot hold the packet.

    package func encode(_ pcm: UnsafeBufferPointer<Int16>, into out: UnsafeMutableRawBufferPointer) throws(OpusError) -> Int {
        let frameSize = pcm.count / channels
        guard pcm.count % channels == 0, Self.isSupportedFrameSize(frameSize, sampleRate: sampleRate),
            let input = pcm.baseAddress
        else { throw .badArgument }
        guard out.count > 0, let dst = out.baseAddress else { throw .bufferTooSmall }
        let capacity = Int32(clamping: out.count)
        let bytes = dst.bindMemory(to: UInt8.self, capacity: out.count)
        return try OpusError.check(opus_encode(state, input, Int32(frameSize), bytes, capacity))
    }

    /// Clears the encoder's history (as after creation), keeping its settings.
    package func reset() throws(OpusError) {
        _ = try OpusError.check(voice_opus_encoder_reset_state(state))
    }
}

@available(*, unavailable)
extension OpusEncoder: Sendable {}
