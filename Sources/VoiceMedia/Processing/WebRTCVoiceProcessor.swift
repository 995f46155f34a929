import CVoiceAPM

/// WebRTC's audio processing module (Debian's libwebrtc-audio-processing 0.3, the one
/// PulseAudio's `module-echo-cancel` uses): the AEC with its extended filter and delay-agnostic
/// mode, noise suppression, the adaptive digital gain control and the high-pass filter, through
/// the C shim in `CVoiceAPM`.
///
/// Threading: `@unchecked Sendable` because the render and capture calls may run on two threads
/// at once (the library keeps its render and capture sides behind locks of its own, held only by
/// those calls); ``setStages(_:)`` must not run concurrently with the capture call.
package final class WebRTCVoiceProcessor: VoiceProcessor, @unchecked Sendable {
    private let apm: OpaquePointer
    package let frameLength: Int

    /// The sample rates the library takes.
    package static let sampleRates: Set<Int> = [8_000, 16_000, 32_000, 48_000]

    /// How the stages are tuned; the default (``standard``) is what devices use.
    package struct Tuning: Hashable, Sendable {
        /// 0 low, 1 moderate, 2 high: how hard residual echo is suppressed (and double talk with it).
        package var echoSuppression: Int
        /// The extended filter: a longer echo tail and a more robust adaptation.
        package var extendedFilter: Bool
        /// Finds the render-to-capture delay itself instead of trusting the device's report.
        package var delayAgnostic: Bool
        /// 0 low, 1 moderate, 2 high, 3 very high.
        package var noiseSuppression: Int
        /// The gain control's target level, dB below full scale.
        package var gainTarget: Int
        /// The most gain the gain control adds, dB.
        package var gainCompression: Int

        package init(
            echoSuppression: Int? = nil, extendedFilter: Bool? = nil, delayAgnostic: Bool? = nil, noiseSuppression: Int? = nil,
            gainTarget: Int? = nil, gainCompression: Int? = nil
        ) {
            let base = voice_apm_tuning_default()
            self.echoSuppression = echoSuppression ?? Int(base.echo_suppression)
            self.extendedFilter = extendedFilter ?? (base.extended_filter != 0)
            self.delayAgnostic = delayAgnostic ?? (base.delay_agnostic != 0)
            self.noiseSuppression = noiseSuppression ?? Int(base.noise_suppression)
            self.gainTarget = gainTarget ?? Int(base.gain_target_dbfs)
            self.gainCompression = gainCompression ?? Int(base.gain_compression_db)
        }

        /// What devices use.
        package static let standard = Tuning()

        var c: voice_apm_tuning {
            voice_apm_tuning(
                echo_suppression: Int32(echoSuppression), extended_filter: extendedFilter ? 1 : 0, delay_agnostic: delayAgnostic ? 1 : 0,
                noise_suppression: Int32(noiseSuppression), gain_target_dbfs: Int32(gainTarget), gain_compression_db: Int32(gainCompression))
        }
    }

    /// A processor for `sampleRate` with the given channel counts, every stage off; nil when the
    /// library refuses the format.
    package init?(sampleRate: Int, captureChannels: Int = 1, renderChannels: Int = 1, tuning: Tuning = .standard) {
        guard Self.sampleRates.contains(sampleRate), (1...2).contains(captureChannels), (1...2).contains(renderChannels),
            let apm = voice_apm_create_tuned(Int32(sampleRate), Int32(captureChannels), Int32(renderChannels), tuning.c)
        else { return nil }
        self.apm = apm
        self.frameLength = sampleRate / 100
    }

    deinit { voice_apm_destroy(apm) }

    package func setStages(_ options: AudioProcessingOptions) -> Bool {
        voice_apm_set_stages(
            apm, options.echoCancellation ? 1 : 0, options.noiseSuppression ? 1 : 0, options.autoGainControl ? 1 : 0,
            options.highPassFilter ? 1 : 0) == 0
    }

    package func analyzeRender(_ frame: UnsafePointer<Int16>) {
        _ = voice_apm_analyze_render(apm, frame)
    }

    package func processCapture(_ frame: UnsafeMutablePointer<Int16>, delayMilliseconds: Int) {
        _ = voice_apm_process_capture(apm, frame, Int32(clamping: delayMilliseconds))
    }

    package var echoMetrics: EchoMetrics? {
        var erl: Float = 0
        var erle: Float = 0
        guard voice_apm_echo_metrics(apm, &erl, &erle) == 0 else { return nil }
        // Until it has measured, the library reports -100 dB.
        guard erl > -100, erle > -100 else { return nil }
        return EchoMetrics(echoReturnLoss: Double(erl), echoReturnLossEnhancement: Double(erle))
    }

    /// The render-to-capture delay the canceller found, ms.
    package var echoDelayMilliseconds: Int? {
        var median: Int32 = 0
        guard voice_apm_delay_estimate(apm, &median) == 0, median >= 0 else { return nil }
        return Int(median)
    }
}
