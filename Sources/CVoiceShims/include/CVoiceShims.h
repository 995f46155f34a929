#ifndef CVOICESHIMS_H
#define CVOICESHIMS_H

#include <stdint.h>
#include <opus/opus.h>
#include <srtp2/srtp.h>
#include <srtp2/cipher.h>

/*
 * Typed wrappers for libopus ctl requests. opus_encoder_ctl / opus_decoder_ctl
 * are variadic C functions, which Swift cannot call; each request gets one
 * prefixed, non-variadic function here. They return the OPUS_* status code;
 * getters write their result through the out pointer.
 */

/* Encoder: rate control. */
int voice_opus_encoder_set_bitrate(OpusEncoder *enc, int32_t bitrate);
int voice_opus_encoder_get_bitrate(OpusEncoder *enc, int32_t *bitrate);
int voice_opus_encoder_set_vbr(OpusEncoder *enc, int32_t vbr);
int voice_opus_encoder_get_vbr(OpusEncoder *enc, int32_t *vbr);
int voice_opus_encoder_set_vbr_constraint(OpusEncoder *enc, int32_t constrained);
int voice_opus_encoder_get_vbr_constraint(OpusEncoder *enc, int32_t *constrained);
int voice_opus_encoder_set_complexity(OpusEncoder *enc, int32_t complexity);
int voice_opus_encoder_get_complexity(OpusEncoder *enc, int32_t *complexity);

/* Encoder: loss resilience and discontinuous transmission. */
int voice_opus_encoder_set_inband_fec(OpusEncoder *enc, int32_t fec);
int voice_opus_encoder_get_inband_fec(OpusEncoder *enc, int32_t *fec);
int voice_opus_encoder_set_packet_loss_perc(OpusEncoder *enc, int32_t percent);
int voice_opus_encoder_get_packet_loss_perc(OpusEncoder *enc, int32_t *percent);
int voice_opus_encoder_set_dtx(OpusEncoder *enc, int32_t dtx);
int voice_opus_encoder_get_dtx(OpusEncoder *enc, int32_t *dtx);
int voice_opus_encoder_get_in_dtx(OpusEncoder *enc, int32_t *in_dtx);

/* Encoder: signal and bandwidth hints. */
int voice_opus_encoder_set_application(OpusEncoder *enc, int32_t application);
int voice_opus_encoder_get_application(OpusEncoder *enc, int32_t *application);
int voice_opus_encoder_set_signal(OpusEncoder *enc, int32_t signal);
int voice_opus_encoder_get_signal(OpusEncoder *enc, int32_t *signal);
int voice_opus_encoder_set_max_bandwidth(OpusEncoder *enc, int32_t bandwidth);
int voice_opus_encoder_get_max_bandwidth(OpusEncoder *enc, int32_t *bandwidth);

/* Encoder: read-only state. */
int voice_opus_encoder_get_lookahead(OpusEncoder *enc, int32_t *samples);
int voice_opus_encoder_get_sample_rate(OpusEncoder *enc, int32_t *rate);
int voice_opus_encoder_get_final_range(OpusEncoder *enc, uint32_t *range);
int voice_opus_encoder_reset_state(OpusEncoder *enc);

/* Decoder. */
int voice_opus_decoder_set_gain(OpusDecoder *dec, int32_t gain_q8_db);
int voice_opus_decoder_get_gain(OpusDecoder *dec, int32_t *gain_q8_db);
int voice_opus_decoder_get_last_packet_duration(OpusDecoder *dec, int32_t *samples);
int voice_opus_decoder_get_sample_rate(OpusDecoder *dec, int32_t *rate);
int voice_opus_decoder_get_final_range(OpusDecoder *dec, uint32_t *range);
int voice_opus_decoder_get_pitch(OpusDecoder *dec, int32_t *pitch);
int voice_opus_decoder_reset_state(OpusDecoder *dec);

/*
 * libsrtp exports its crypto kernel (srtp_crypto_kernel_alloc_cipher) but only
 * declares it in a private header. This wrapper allocates a raw cipher of the
 * given type id (SRTP_AES_ICM_128, ...) from the kernel loaded by srtp_init(),
 * so AES counter-mode known-answer tests can drive libsrtp's own cipher through
 * the public srtp_cipher_* functions of <srtp2/cipher.h>. Returns the
 * srtp_err_status_t of the allocation.
 */
srtp_err_status_t voice_srtp_cipher_alloc(srtp_cipher_type_id_t id,
                                          srtp_cipher_t **cipher,
                                          int key_len,
                                          int tag_len);

#endif
