#include <stddef.h>
#include "CVoiceShims.h"

/* Declared in libsrtp's private crypto_kernel.h; exported by libsrtp2.so. */
extern srtp_err_status_t srtp_crypto_kernel_alloc_cipher(srtp_cipher_type_id_t id,
                                                         srtp_cipher_pointer_t *cp,
                                                         int key_len,
                                                         int tag_len);

srtp_err_status_t voice_srtp_cipher_alloc(srtp_cipher_type_id_t id,
                                          srtp_cipher_t **cipher,
                                          int key_len,
                                          int tag_len) {
    if (cipher == NULL) {
        return srtp_err_status_bad_param;
    }
    return srtp_crypto_kernel_alloc_cipher(id, cipher, key_len, tag_len);
}
