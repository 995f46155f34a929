#ifndef CVOICESHIMS_H
#define CVOICESHIMS_H

#include <stdint.h>
#include <opus/opus.h>

/*
 * Typed wrappers for libopus ctl requests. opus_encoder_ctl / opus_decoder_ctl
 * are variadic C functions, which Swift cannot call; each request gets one
 * prefixed, non-variadic function here. They return the OPUS_* status code.
 */

int voice_opus_encoder_set_bitrate(OpusEncoder *enc, int32_t bitrate);

#endif
