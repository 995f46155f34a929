// The C face of WebRTC's AudioProcessing (see CVoiceAPM.h). The settings here are the ones
// PulseAudio's module-echo-cancel and the WebRTC voice engine of that era use for a desktop
// device: the extended AEC filter (echo tails of a real room), delay-agnostic mode (the device's
// reported latency is only a starting point), moderate noise suppression, and the classic
// adaptive digital gain control with a limiter. voice_apm_tuning_default says how each is set.

#include "CVoiceAPM.h"

#include <new>
#include <string.h>

// What the library's pkg-config file defines.
#define WEBRTC_POSIX 1
#define WEBRTC_AUDIO_PROCESSING_ONLY_BUILD 1
#include <webrtc/modules/audio_processing/include/audio_processing.h>

// The float interface: Debian's package ships AudioFrame's header without the headers it
// includes. Samples cross as deinterleaved floats in [-1, 1], in buffers allocated here.
enum { kMaxChannels = 2, kMaxFrame = 480 };

struct voice_apm {
    webrtc::AudioProcessing *apm;
    webrtc::StreamConfig capture_config;
    webrtc::StreamConfig render_config;
    int frame;
    float capture[kMaxChannels][kMaxFrame];
    float render[kMaxChannels][kMaxFrame];
    float *capture_channels[kMaxChannels];
    float *render_channels[kMaxChannels];
};

static void deinterleave(const int16_t *samples, int frame, int channels, float *const *out) {
    for (int c = 0; c < channels; c++) {
        for (int i = 0; i < frame; i++) out[c][i] = (float)samples[i * channels + c] / 32768.0f;
    }
}

static void interleave(float *const *in, int frame, int channels, int16_t *samples) {
    for (int c = 0; c < channels; c++) {
        for (int i = 0; i < frame; i++) {
            float v = in[c][i] * 32768.0f;
            samples[i * channels + c] = v >= 32767.0f ? 32767 : (v <= -32768.0f ? -32768 : (int16_t)v);
        }
    }
}

extern "C" voice_apm_tuning voice_apm_tuning_default(void) {
    voice_apm_tuning tuning;
    // Low suppression: on the simulated room it keeps the same single-talk ERLE as high (39 dB on
    // speech) and does the least damage to a near-end talker in double talk (voice-bench apm).
    tuning.echo_suppression = 0;
    tuning.extended_filter = 1;
    tuning.delay_agnostic = 1;
    tuning.noise_suppression = 1;
    // Speech from a quiet talker is brought toward −20 dBFS RMS: the gain control's target is a
    // peak-like level (dB below full scale) and its compression gain the most it adds.
    tuning.gain_target_dbfs = 6;
    tuning.gain_compression_db = 20;
    return tuning;
}

extern "C" voice_apm *voice_apm_create(int sample_rate, int capture_channels, int render_channels) {
    return voice_apm_create_tuned(sample_rate, capture_channels, render_channels, voice_apm_tuning_default());
}

extern "C" voice_apm *voice_apm_create_tuned(int sample_rate, int capture_channels, int render_channels, voice_apm_tuning tuning) {
    if (sample_rate != 8000 && sample_rate != 16000 && sample_rate != 32000 && sample_rate != 48000) return nullptr;
    if (capture_channels < 1 || capture_channels > 2 || render_channels < 1 || render_channels > 2) return nullptr;
    webrtc::Config config;
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(tuning.extended_filter != 0));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(tuning.delay_agnostic != 0));
    // The "experimental" AGC (on by default in 0.3) drives an analog microphone volume we do not
    // have and ignores the target and compression below; the classic adaptive digital one is
    // what a device without a hardware volume wants.
    config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create(config);
    if (apm == nullptr) return nullptr;
    webrtc::ProcessingConfig processing = {{
        webrtc::StreamConfig(sample_rate, capture_channels),
        webrtc::StreamConfig(sample_rate, capture_channels),
        webrtc::StreamConfig(sample_rate, render_channels),
        webrtc::StreamConfig(sample_rate, render_channels),
    }};
    if (apm->Initialize(processing) != webrtc::AudioProcessing::kNoError) {
        delete apm;
        return nullptr;
    }
    apm->echo_cancellation()->enable_drift_compensation(false);
    apm->echo_cancellation()->set_suppression_level(
        tuning.echo_suppression <= 0 ? webrtc::EchoCancellation::kLowSuppression
                         : (tuning.echo_suppression == 1 ? webrtc::EchoCancellation::kModerateSuppression : webrtc::EchoCancellation::kHighSuppression));
    apm->echo_cancellation()->enable_metrics(true);
    apm->echo_cancellation()->enable_delay_logging(true);
    static const webrtc::NoiseSuppression::Level levels[] = {
        webrtc::NoiseSuppression::kLow, webrtc::NoiseSuppression::kModerate, webrtc::NoiseSuppression::kHigh,
        webrtc::NoiseSuppression::kVeryHigh};
    apm->noise_suppression()->set_level(levels[tuning.noise_suppression < 0 ? 0 : (tuning.noise_suppression > 3 ? 3 : tuning.noise_suppression)]);
    apm->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital);
    apm->gain_control()->set_target_level_dbfs(tuning.gain_target_dbfs);
    apm->gain_control()->set_compression_gain_db(tuning.gain_compression_db);
    apm->gain_control()->enable_limiter(true);
    voice_apm *result = new (std::nothrow) voice_apm;
    if (result == nullptr) {
        delete apm;
        return nullptr;
    }
    result->apm = apm;
    result->capture_config = webrtc::StreamConfig(sample_rate, capture_channels);
    result->render_config = webrtc::StreamConfig(sample_rate, render_channels);
    result->frame = sample_rate / 100;
    for (int c = 0; c < kMaxChannels; c++) {
        result->capture_channels[c] = result->capture[c];
        result->render_channels[c] = result->render[c];
    }
    return result;
}

extern "C" void voice_apm_destroy(voice_apm *apm) {
    if (apm == nullptr) return;
    delete apm->apm;
    delete apm;
}

extern "C" int voice_apm_set_stages(voice_apm *apm, int echo_cancellation, int noise_suppression,
                                    int gain_control, int high_pass_filter) {
    int error;
    if ((error = apm->apm->echo_cancellation()->Enable(echo_cancellation != 0)) != 0) return error;
    if ((error = apm->apm->noise_suppression()->Enable(noise_suppression != 0)) != 0) return error;
    if ((error = apm->apm->gain_control()->Enable(gain_control != 0)) != 0) return error;
    return apm->apm->high_pass_filter()->Enable(high_pass_filter != 0);
}

extern "C" int voice_apm_analyze_render(voice_apm *apm, const int16_t *samples) {
    int channels = apm->render_config.num_channels();
    deinterleave(samples, apm->frame, channels, apm->render_channels);
    return apm->apm->ProcessReverseStream(apm->render_channels, apm->render_config, apm->render_config, apm->render_channels);
}

extern "C" int voice_apm_process_capture(voice_apm *apm, int16_t *samples, int delay_ms) {
    int channels = apm->capture_config.num_channels();
    deinterleave(samples, apm->frame, channels, apm->capture_channels);
    // Out of range only warns (the delay is clamped); processing goes on.
    apm->apm->set_stream_delay_ms(delay_ms);
    int error = apm->apm->ProcessStream(apm->capture_channels, apm->capture_config, apm->capture_config, apm->capture_channels);
    if (error != webrtc::AudioProcessing::kNoError) return error;
    interleave(apm->capture_channels, apm->frame, channels, samples);
    return 0;
}

extern "C" int voice_apm_echo_metrics(voice_apm *apm, float *echo_return_loss, float *echo_return_loss_enhancement) {
    webrtc::EchoCancellation::Metrics metrics;
    int error = apm->apm->echo_cancellation()->GetMetrics(&metrics);
    if (error != webrtc::AudioProcessing::kNoError) return error;
    *echo_return_loss = (float)metrics.echo_return_loss.instant;
    *echo_return_loss_enhancement = (float)metrics.echo_return_loss_enhancement.instant;
    return 0;
}

extern "C" int voice_apm_delay_estimate(voice_apm *apm, int *median_ms) {
    int std_ms = 0;
    return apm->apm->echo_cancellation()->GetDelayMetrics(median_ms, &std_ms);
}
