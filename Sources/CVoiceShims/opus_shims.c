#include "CVoiceShims.h"

int voice_opus_encoder_set_bitrate(OpusEncoder *enc, int32_t bitrate) {
    return opus_encoder_ctl(enc, OPUS_SET_BITRATE(bitrate));
}
