#ifndef CVOICEAPM_H
#define CVOICEAPM_H

// A C face for WebRTC's audio processing module (libwebrtc-audio-processing 0.3, C++), so Swift
// calls it without C++ interop. Everything is prefixed `voice_apm_`; one processor serves one
// physical device: capture frames are processed in place, render frames are the echo reference.
// Frames are exactly 10 ms of interleaved signed 16-bit samples. The capture and render calls may
// run on two different threads at once (the library keeps them apart); nothing else may run
// concurrently with them, and none of them allocates.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct voice_apm voice_apm;

/// A processor for `sample_rate` Hz (8000, 16000, 32000 or 48000) with 1 or 2 channels each way,
/// every stage off. NULL when the library refuses the format (or memory runs out).
voice_apm *voice_apm_create(int sample_rate, int capture_channels, int render_channels);

/// How the stages are tuned (voice_apm_tuning_default: what voice_apm_create uses).
typedef struct voice_apm_tuning {
    int echo_suppression;    ///< 0 low, 1 moderate, 2 high: residual echo suppression
    int extended_filter;     ///< non-zero: the AEC's extended (longer, more robust) filter
    int delay_agnostic;      ///< non-zero: the AEC finds the delay itself
    int noise_suppression;   ///< 0 low, 1 moderate, 2 high, 3 very high
    int gain_target_dbfs;    ///< the gain control's target level, dB below full scale (0-31)
    int gain_compression_db; ///< the most gain it adds, dB (0-90)
} voice_apm_tuning;

voice_apm_tuning voice_apm_tuning_default(void);

/// The same with the stages tuned.
voice_apm *voice_apm_create_tuned(int sample_rate, int capture_channels, int render_channels, voice_apm_tuning tuning);

void voice_apm_destroy(voice_apm *apm);

/// Turns the stages on or off (non-zero: on). Returns 0 or the library's (negative) error.
int voice_apm_set_stages(voice_apm *apm, int echo_cancellation, int noise_suppression,
                         int gain_control, int high_pass_filter);

/// Analyzes one 10 ms render frame: what the speaker is about to play.
int voice_apm_analyze_render(voice_apm *apm, const int16_t *samples);

/// Processes one 10 ms capture frame in place. `delay_ms` is the time between a render frame
/// being analyzed and its echo reaching this capture call: playback plus capture latency.
int voice_apm_process_capture(voice_apm *apm, int16_t *samples, int delay_ms);

/// The echo canceller's running metrics in dB (ERL: far end over echo; ERLE: echo over what is
/// left after cancellation). Returns 0 when they are available, non-zero while the canceller is
/// off or has not seen enough audio yet.
int voice_apm_echo_metrics(voice_apm *apm, float *echo_return_loss, float *echo_return_loss_enhancement);

/// The delay the canceller found between render and capture, in ms (its median since the last
/// call). Returns 0 when known.
int voice_apm_delay_estimate(voice_apm *apm, int *median_ms);

#ifdef __cplusplus
}
#endif

#endif
