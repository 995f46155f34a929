#include "CVoiceShims.h"

/* One non-variadic function per ctl request; see CVoiceShims.h. */

#define VOICE_ENC_SET(name, request) \
    int voice_opus_encoder_set_##name(OpusEncoder *enc, int32_t value) { \
        return opus_encoder_ctl(enc, request(value)); \
    }
#define VOICE_ENC_GET(name, request) \
    int voice_opus_encoder_get_##name(OpusEncoder *enc, int32_t *value) { \
        opus_int32 v = 0; \
        int rc = opus_encoder_ctl(enc, request(&v)); \
        if (rc == OPUS_OK) *value = v; \
        return rc; \
    }
#define VOICE_DEC_GET(name, request) \
    int voice_opus_decoder_get_##name(OpusDecoder *dec, int32_t *value) { \
        opus_int32 v = 0; \
        int rc = opus_decoder_ctl(dec, request(&v)); \
        if (rc == OPUS_OK) *value = v; \
        return rc; \
    }

VOICE_ENC_SET(bitrate, OPUS_SET_BITRATE)
VOICE_ENC_GET(bitrate, OPUS_GET_BITRATE)
VOICE_ENC_SET(vbr, OPUS_SET_VBR)
VOICE_ENC_GET(vbr, OPUS_GET_VBR)
VOICE_ENC_SET(vbr_constraint, OPUS_SET_VBR_CONSTRAINT)
VOICE_ENC_GET(vbr_constraint, OPUS_GET_VBR_CONSTRAINT)
VOICE_ENC_SET(complexity, OPUS_SET_COMPLEXITY)
VOICE_ENC_GET(complexity, OPUS_GET_COMPLEXITY)

VOICE_ENC_SET(inband_fec, OPUS_SET_INBAND_FEC)
VOICE_ENC_GET(inband_fec, OPUS_GET_INBAND_FEC)
VOICE_ENC_SET(packet_loss_perc, OPUS_SET_PACKET_LOSS_PERC)
VOICE_ENC_GET(packet_loss_perc, OPUS_GET_PACKET_LOSS_PERC)
VOICE_ENC_SET(dtx, OPUS_SET_DTX)
VOICE_ENC_GET(dtx, OPUS_GET_DTX)
VOICE_ENC_GET(in_dtx, OPUS_GET_IN_DTX)

VOICE_ENC_SET(application, OPUS_SET_APPLICATION)
VOICE_ENC_GET(application, OPUS_GET_APPLICATION)
VOICE_ENC_SET(signal, OPUS_SET_SIGNAL)
VOICE_ENC_GET(signal, OPUS_GET_SIGNAL)
VOICE_ENC_SET(max_bandwidth, OPUS_SET_MAX_BANDWIDTH)
VOICE_ENC_GET(max_bandwidth, OPUS_GET_MAX_BANDWIDTH)

VOICE_ENC_GET(lookahead, OPUS_GET_LOOKAHEAD)
VOICE_ENC_GET(sample_rate, OPUS_GET_SAMPLE_RATE)

int voice_opus_encoder_get_final_range(OpusEncoder *enc, uint32_t *range) {
    opus_uint32 v = 0;
    int rc = opus_encoder_ctl(enc, OPUS_GET_FINAL_RANGE(&v));
    if (rc == OPUS_OK) *range = v;
    return rc;
}

int voice_opus_encoder_reset_state(OpusEncoder *enc) {
    return opus_encoder_ctl(enc, OPUS_RESET_STATE);
}

int voice_opus_decoder_set_gain(OpusDecoder *dec, int32_t gain_q8_db) {
    return opus_decoder_ctl(dec, OPUS_SET_GAIN(gain_q8_db));
}

VOICE_DEC_GET(gain, OPUS_GET_GAIN)
VOICE_DEC_GET(last_packet_duration, OPUS_GET_LAST_PACKET_DURATION)
VOICE_DEC_GET(sample_rate, OPUS_GET_SAMPLE_RATE)
VOICE_DEC_GET(pitch, OPUS_GET_PITCH)

int voice_opus_decoder_get_final_range(OpusDecoder *dec, uint32_t *range) {
    opus_uint32 v = 0;
    int rc = opus_decoder_ctl(dec, OPUS_GET_FINAL_RANGE(&v));
    if (rc == OPUS_OK) *range = v;
    return rc;
}

int voice_opus_decoder_reset_state(OpusDecoder *dec) {
    return opus_decoder_ctl(dec, OPUS_RESET_STATE);
}
