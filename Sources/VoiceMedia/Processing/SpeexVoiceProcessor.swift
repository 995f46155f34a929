import CSpeexDSP

/// speexdsp's echo canceller (`speex_echo`, MDF) and preprocessor (noise suppression, gain
/// control, residual echo suppression): the other candidate for device processing, measured
/// against ``WebRTCVoiceProcessor`` by `voice-bench apm`. Devices use the WebRTC one (the README
/// says why); this one stays for the comparison.
///
/// Speex has no delay estimation and no high-pass stage: its adaptive filter must span the whole
/// echo path (delay and room tail, ``filterLength``), and ``AudioProcessingOptions/highPassFilter``
/// is ignored. Mono only.
///
/// Threading: not thread-safe. The render frame is kept until the next capture frame, so the
/// two calls alternate on one thread (as the benchmark drives them).
package final class SpeexVoiceProcessor: VoiceProcessor {
    private let echo: OpaquePointer
    private let preprocess: OpaquePointer
    private let render: UnsafeMutableBufferPointer<Int16>
    private let output: UnsafeMutableBufferPointer<Int16>
    private var options = AudioProcessingOptions.none
    package let frameLength: Int
    /// The adaptive filter's length in samples.
    package let filterLength: Int

    /// A processor for mono `sampleRate` audio whose echo filter spans `tail` seconds.
    package init?(sampleRate: Int, tail: Double = 0.3) {
        let frame = sampleRate / 100
        let filter = Int(Double(sampleRate) * tail)
        guard sampleRate > 0, frame > 0,
            let echo = speex_echo_state_init(Int32(frame), Int32(filter)),
            let preprocess = speex_preprocess_state_init(Int32(frame), Int32(sampleRate))
        else { return nil }
        self.echo = echo
        self.preprocess = preprocess
        self.frameLength = frame
        self.filterLength = filter
        self.render = .allocate(capacity: frame)
        render.initialize(repeating: 0)
        self.output = .allocate(capacity: frame)
        output.initialize(repeating: 0)
        var rate = Int32(sampleRate)
        speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        // The gain control's target: about −20 dBFS RMS.
        var level: Float = 3_300
        speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level)
    }

    deinit {
        speex_preprocess_state_destroy(preprocess)
        speex_echo_state_destroy(echo)
        render.deallocate()
        output.deallocate()
    }

    package func setStages(_ options: AudioProcessingOptions) -> Bool {
        self.options = options
        var denoise: Int32 = options.noiseSuppression ? 1 : 0
        var agc: Int32 = options.autoGainControl ? 1 : 0
        speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_DENOISE, &denoise)
        speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_AGC, &agc)
        // Residual echo suppression rides on the preprocessor when the canceller runs.
        speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_STATE, options.echoCancellation ? UnsafeMutableRawPointer(echo) : nil)
        return true
    }

    package func analyzeRender(_ frame: UnsafePointer<Int16>) {
        render.baseAddress?.update(from: frame, count: frameLength)
    }

    package func processCapture(_ frame: UnsafeMutablePointer<Int16>, delayMilliseconds: Int) {
        guard let out = output.baseAddress, let play = render.baseAddress else { return }
        if options.echoCancellation {
            speex_echo_cancellation(echo, frame, play, out)
            frame.update(from: out, count: frameLength)
        }
        if options.echoCancellation || options.noiseSuppression || options.autoGainControl {
            speex_preprocess_run(preprocess, frame)
        }
    }

    /// Speex reports no echo metrics.
    package var echoMetrics: EchoMetrics? { nil }
    /// Speex estimates no delay: its filter spans it.
    package var echoDelayMilliseconds: Int? { nil }
}
