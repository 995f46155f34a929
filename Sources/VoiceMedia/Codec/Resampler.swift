import CSpeexDSP
import VoiceSupport

/// A sample-rate converter over the speexdsp resampler (windowed-sinc, band-limited: it
/// filters before decimating, so no aliasing), for 16-bit interleaved PCM.
///
/// Threading: not thread-safe; one resampler per direction, used from one thread. It is
/// deliberately not `Sendable`.
package final class Resampler {
    /// Quality levels: 0 (cheapest) to 10 (best).
    package static let qualityRange = 0...10
    /// speexdsp's recommended quality for voice calls.
    package static let voipQuality = 3
    /// speexdsp's default quality.
    package static let defaultQuality = 4

    /// Input sample rate in Hz.
    package private(set) var inputRate: Int
    /// Output sample rate in Hz.
    package private(set) var outputRate: Int
    /// Interleaved channels.
    package let channels: Int
    private let state: OpaquePointer

    /// Creates a resampler.
    /// - Parameters:
    ///   - inputRate: input rate in Hz (> 0).
    ///   - outputRate: output rate in Hz (> 0).
    ///   - channels: interleaved channel count (≥ 1).
    ///   - quality: 0...10, ``defaultQuality`` by default.
    /// - Throws: ``ResamplerError/invalidArgument`` for out-of-range values.
    package init(inputRate: Int, outputRate: Int, channels: Int = 1, quality: Int = Resampler.defaultQuality) throws(ResamplerError) {
        guard inputRate > 0, outputRate > 0, inputRate <= Int(UInt32.max), outputRate <= Int(UInt32.max),
            (1...32).contains(channels), Self.qualityRange.contains(quality)
        else { throw .invalidArgument }
        var rc: Int32 = 0
        guard let st = speex_resampler_init(UInt32(channels), UInt32(inputRate), UInt32(outputRate), Int32(quality), &rc)
        else { throw ResamplerError(code: rc == 0 ? Int32(RESAMPLER_ERR_ALLOC_FAILED) : rc) }
        self.state = st
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
    }

    deinit { speex_resampler_destroy(state) }

    /// Output samples per channel that `inputFrames` input samples per channel turn into,
    /// rounded up: a safe output buffer size.
    package func outputCapacity(forInput inputFrames: Int) -> Int {
        (inputFrames * outputRate + inputRate - 1) / inputRate
    }

    /// Resamples as much of `input` as fits in `output`. Hot path: allocates nothing.
    ///
    /// For an integer ratio (48 kHz ↔ 8/16 kHz) and enough room, all input is consumed and
    /// exactly `input × outputRate / inputRate` samples come out; the filter's delay
    /// (``outputLatency``) shows up as leading output, not as missing samples.
    /// - Parameters:
    ///   - input: interleaved input samples (a whole number of frames).
    ///   - output: room for the result.
    /// - Returns: interleaved samples consumed from `input` and written to `output`.
    package func process(
        _ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>
    ) throws(ResamplerError) -> (consumed: Int, produced: Int) {
        guard input.count % channels == 0 else { throw .invalidArgument }
        guard let src = input.baseAddress, let dst = output.baseAddress else {
            return (0, 0)
        }
        var inFrames = UInt32(clamping: input.count / channels)
        var outFrames = UInt32(clamping: output.count / channels)
        try ResamplerError.check(speex_resampler_process_interleaved_int(state, src, &inFrames, dst, &outFrames))
        return (Int(inFrames) * channels, Int(outFrames) * channels)
    }

    /// Changes the rates, keeping the filter history (for a renegotiated stream).
    package func setRates(input: Int, output: Int) throws(ResamplerError) {
        guard input > 0, output > 0, input <= Int(UInt32.max), output <= Int(UInt32.max) else { throw .invalidArgument }
        try ResamplerError.check(speex_resampler_set_rate(state, UInt32(input), UInt32(output)))
        inputRate = input
        outputRate = output
    }

    /// The quality level, 0...10.
    package var quality: Int {
        var q: Int32 = 0
        speex_resampler_get_quality(state, &q)
        return Int(q)
    }

    /// Changes the quality level (0...10); takes effect on the next ``process(_:into:)``.
    package func setQuality(_ quality: Int) throws(ResamplerError) {
        guard Self.qualityRange.contains(quality) else { throw .invalidArgument }
        try ResamplerError.check(speex_resampler_set_quality(state, Int32(quality)))
    }

    /// Filter delay, in input samples per channel.
    package var inputLatency: Int { Int(speex_resampler_get_input_latency(state)) }
    /// Filter delay, in output samples per channel.
    package var outputLatency: Int { Int(speex_resampler_get_output_latency(state)) }

    /// Drops the leading zeros the filter would otherwise emit, so output starts in step with
    /// input. Call before the first ``process(_:into:)``.
    package func skipZeros() throws(ResamplerError) {
        try ResamplerError.check(speex_resampler_skip_zeros(state))
    }

    /// Clears the filter history (e.g. after a discontinuity).
    package func reset() throws(ResamplerError) {
        try ResamplerError.check(speex_resampler_reset_mem(state))
    }
}

@available(*, unavailable)
extension Resampler: Sendable {}
