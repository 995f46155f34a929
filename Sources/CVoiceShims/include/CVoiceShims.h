#ifndef CVOICESHIMS_H
#define CVOICESHIMS_H

#include <stdint.h>
#include <opus/opus.h>
#include <srtp2/srtp.h>
#include <srtp2/cipher.h>

/*
 * Typed wrappers for libopus ctl requests. opus_encoder_ctl / opus_decoder_ctl
 * are variadic C functions, which Swift cannot call; each request gets one
 * prefixed, non-variadic function here. They return the OPUS_* status code.
 */

int voice_opus_encoder_set_bitrate(OpusEncoder *enc, int32_t bitrate);

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
