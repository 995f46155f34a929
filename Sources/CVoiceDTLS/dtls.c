#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/srtp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "CVoiceDTLS.h"

const int VOICE_DTLS_IN_PROGRESS = 0;
const int VOICE_DTLS_CONNECTED = 1;
const int VOICE_DTLS_CLOSED = 2;
const int VOICE_DTLS_FAILED = -1;

const int VOICE_DTLS_SRTP_AES128_CM_SHA1_80 = SRTP_AES128_CM_SHA1_80;
const int VOICE_DTLS_SRTP_AES128_CM_SHA1_32 = SRTP_AES128_CM_SHA1_32;
const int VOICE_DTLS_SRTP_AEAD_AES_128_GCM = SRTP_AEAD_AES_128_GCM;
const int VOICE_DTLS_SRTP_AEAD_AES_256_GCM = SRTP_AEAD_AES_256_GCM;

enum { MAX_DATAGRAM = 2048, INBOX_SLOTS = 4, MAX_TIMEOUT_US = 3000000 };

/* ECDHE only; ECDSA first (our certificate), RSA kept for peers whose certificate is RSA. */
static const char *const CIPHERS =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:"
    "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305:"
    "ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA";
/* As a server OpenSSL picks by this order; as a client it offers all three. */
static const char *const SRTP_PROFILES = "SRTP_AEAD_AES_128_GCM:SRTP_AEAD_AES_256_GCM:SRTP_AES128_CM_SHA1_80";

struct voice_dtls_identity {
    SSL_CTX *ctx;
    X509 *cert;
    EVP_PKEY *key;
};

struct outgoing {
    struct outgoing *next;
    size_t len;
    uint8_t bytes[];
};

struct voice_dtls {
    SSL *ssl;
    uint8_t inbox[INBOX_SLOTS][MAX_DATAGRAM];
    size_t inbox_len[INBOX_SLOTS];
    int inbox_head;
    int inbox_count;
    struct outgoing *out_head;
    struct outgoing *out_tail;
    unsigned int initial_timeout_us;
    int failed;
    int closed;
    int alert_received;
    char error[256];
};

/* ---- The datagram BIO: one datagram per read and per write. ---- */

static BIO_METHOD *datagram_method;
static pthread_once_t datagram_method_once = PTHREAD_ONCE_INIT;

static int datagram_write(BIO *bio, const char *data, int len) {
    voice_dtls *dtls = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (len <= 0) return 0;
    struct outgoing *node = malloc(sizeof(struct outgoing) + (size_t)len);
    if (node == NULL) return -1;
    node->next = NULL;
    node->len = (size_t)len;
    memcpy(node->bytes, data, (size_t)len);
    if (dtls->out_tail != NULL) dtls->out_tail->next = node; else dtls->out_head = node;
    dtls->out_tail = node;
    return len;
}

static int datagram_read(BIO *bio, char *out, int cap) {
    voice_dtls *dtls = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (dtls->inbox_count == 0) {
        BIO_set_retry_read(bio);
        return -1;
    }
    size_t len = dtls->inbox_len[dtls->inbox_head];
    if (cap < 0) cap = 0;
    if (len > (size_t)cap) len = (size_t)cap; /* a datagram read short is truncated, as recv(2) does */
    memcpy(out, dtls->inbox[dtls->inbox_head], len);
    dtls->inbox_head = (dtls->inbox_head + 1) % INBOX_SLOTS;
    dtls->inbox_count--;
    return (int)len;
}

static long datagram_ctrl(BIO *bio, int cmd, long num, void *ptr) {
    (void)bio; (void)num; (void)ptr;
    switch (cmd) {
    case BIO_CTRL_FLUSH:
        return 1;
    default:
        /* No MTU query (SSL_OP_NO_QUERY_MTU with SSL_set_mtu), no peer address, no socket timers. */
        return 0;
    }
}

static int datagram_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static void make_datagram_method(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "voice dtls datagrams");
    if (method == NULL) return;
    BIO_meth_set_write(method, datagram_write);
    BIO_meth_set_read(method, datagram_read);
    BIO_meth_set_ctrl(method, datagram_ctrl);
    BIO_meth_set_create(method, datagram_create);
    datagram_method = method;
}

/* ---- Identity ---- */

/* RFC 5763 §5: the certificate is self-signed, and the fingerprint from the SDP is what
 * authenticates it (checked once the handshake is done). So no chain is built or verified at all:
 * X509_verify_cert's store lookups and self-signature check cost a third of a millisecond a side
 * and prove nothing here. The handshake's own signatures (ServerKeyExchange, CertificateVerify)
 * still prove that the peer holds the certificate's key. */
static int accept_any_certificate(X509_STORE_CTX *store, void *arg) {
    (void)store; (void)arg;
    return 1;
}

static voice_dtls_identity *identity_with(X509 *cert, EVP_PKEY *key) {
    SSL_CTX *ctx = SSL_CTX_new(DTLS_method());
    if (ctx == NULL) goto fail;
    if (SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) != 1) goto fail;
    if (SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION) != 1) goto fail;
    if (SSL_CTX_use_certificate(ctx, cert) != 1) goto fail;
    if (SSL_CTX_use_PrivateKey(ctx, key) != 1) goto fail;
    if (SSL_CTX_check_private_key(ctx) != 1) goto fail;
    if (SSL_CTX_set_cipher_list(ctx, CIPHERS) != 1) goto fail;
    if (SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384") != 1) goto fail;
    if (SSL_CTX_set_tlsext_use_srtp(ctx, SRTP_PROFILES) != 0) goto fail; /* 0 is success here */
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    SSL_CTX_set_cert_verify_callback(ctx, accept_any_certificate, NULL);
    SSL_CTX_set_options(ctx, SSL_OP_NO_QUERY_MTU | SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    voice_dtls_identity *identity = calloc(1, sizeof(*identity));
    if (identity == NULL) goto fail;
    identity->ctx = ctx;
    identity->cert = cert;
    identity->key = key;
    return identity;
fail:
    SSL_CTX_free(ctx);
    X509_free(cert);
    EVP_PKEY_free(key);
    ERR_clear_error();
    return NULL;
}

voice_dtls_identity *voice_dtls_identity_generate(const char *common_name, int days) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    BIGNUM *serial = BN_new();
    if (key == NULL || cert == NULL || serial == NULL) goto fail;
    if (X509_set_version(cert, 2) != 1) goto fail;
    if (BN_rand(serial, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1) goto fail;
    if (BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert)) == NULL) goto fail;
    if (X509_gmtime_adj(X509_getm_notBefore(cert), -86400L) == NULL) goto fail;
    if (X509_gmtime_adj(X509_getm_notAfter(cert), (long)days * 86400L) == NULL) goto fail;
    if (X509_set_pubkey(cert, key) != 1) goto fail;
    X509_NAME *name = X509_get_subject_name(cert);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1) goto fail;
    if (X509_set_issuer_name(cert, name) != 1) goto fail;
    if (X509_sign(cert, key, EVP_sha256()) == 0) goto fail;
    BN_free(serial);
    return identity_with(cert, key);
fail:
    BN_free(serial);
    X509_free(cert);
    EVP_PKEY_free(key);
    ERR_clear_error();
    return NULL;
}

voice_dtls_identity *voice_dtls_identity_from_pem(const char *cert_pem, size_t cert_len,
                                                  const char *key_pem, size_t key_len) {
    if (cert_len > 65536 || key_len > 65536) return NULL;
    BIO *cert_bio = BIO_new_mem_buf(cert_pem, (int)cert_len);
    BIO *key_bio = BIO_new_mem_buf(key_pem, (int)key_len);
    X509 *cert = cert_bio ? PEM_read_bio_X509(cert_bio, NULL, NULL, NULL) : NULL;
    EVP_PKEY *key = key_bio ? PEM_read_bio_PrivateKey(key_bio, NULL, NULL, NULL) : NULL;
    BIO_free(cert_bio);
    BIO_free(key_bio);
    if (cert == NULL || key == NULL || X509_check_private_key(cert, key) != 1) {
        X509_free(cert);
        EVP_PKEY_free(key);
        ERR_clear_error();
        return NULL;
    }
    return identity_with(cert, key);
}

static int copy_out(BIO *bio, char **out, size_t *len) {
    char *data = NULL;
    long n = BIO_get_mem_data(bio, &data);
    if (n <= 0) return 0;
    *out = malloc((size_t)n + 1);
    if (*out == NULL) return 0;
    memcpy(*out, data, (size_t)n);
    (*out)[n] = 0;
    *len = (size_t)n;
    return 1;
}

int voice_dtls_identity_to_pem(const voice_dtls_identity *identity, char **cert_pem, size_t *cert_len,
                               char **key_pem, size_t *key_len) {
    int ok = 0;
    *cert_pem = NULL;
    *key_pem = NULL;
    BIO *cert_bio = BIO_new(BIO_s_mem());
    BIO *key_bio = BIO_new(BIO_s_mem());
    if (cert_bio && key_bio && PEM_write_bio_X509(cert_bio, identity->cert) == 1 &&
        PEM_write_bio_PrivateKey(key_bio, identity->key, NULL, NULL, 0, NULL, NULL) == 1 &&
        copy_out(cert_bio, cert_pem, cert_len) && copy_out(key_bio, key_pem, key_len)) {
        ok = 1;
    }
    if (!ok) {
        free(*cert_pem);
        free(*key_pem);
        *cert_pem = NULL;
        *key_pem = NULL;
    }
    BIO_free(cert_bio);
    BIO_free(key_bio);
    ERR_clear_error();
    return ok;
}

/* "sha-256", "SHA-256", "sha256" -> SHA-256; only the SHA family RFC 8122 lists. */
static const EVP_MD *digest_named(const char *name) {
    char plain[16];
    size_t n = 0;
    for (const char *p = name; *p != 0; p++) {
        if (*p == '-') continue;
        if (n + 1 >= sizeof(plain)) return NULL;
        plain[n++] = (char)tolower((unsigned char)*p);
    }
    plain[n] = 0;
    if (strcmp(plain, "sha1") == 0) return EVP_sha1();
    if (strcmp(plain, "sha224") == 0) return EVP_sha224();
    if (strcmp(plain, "sha256") == 0) return EVP_sha256();
    if (strcmp(plain, "sha384") == 0) return EVP_sha384();
    if (strcmp(plain, "sha512") == 0) return EVP_sha512();
    return NULL;
}

int voice_dtls_identity_fingerprint(const voice_dtls_identity *identity, const char *digest,
                                    uint8_t *out, unsigned int *out_len) {
    const EVP_MD *md = digest_named(digest);
    if (md == NULL) return 0;
    return X509_digest(identity->cert, md, out, out_len) == 1;
}

void voice_dtls_identity_free(voice_dtls_identity *identity) {
    if (identity == NULL) return;
    SSL_CTX_free(identity->ctx);
    X509_free(identity->cert);
    EVP_PKEY_free(identity->key);
    free(identity);
}

void voice_dtls_free_buffer(char *buffer) { free(buffer); }

/* ---- Association ---- */

static unsigned int next_timeout(SSL *ssl, unsigned int previous_us) {
    voice_dtls *dtls = SSL_get_app_data(ssl);
    if (previous_us == 0) return dtls->initial_timeout_us;
    unsigned int next = previous_us * 2;
    return next > MAX_TIMEOUT_US ? MAX_TIMEOUT_US : next;
}

static void note_alert(const SSL *ssl, int where, int value) {
    if ((where & SSL_CB_READ_ALERT) != SSL_CB_READ_ALERT) return;
    voice_dtls *dtls = SSL_get_app_data(ssl);
    if (strcmp(SSL_alert_type_string(value), "F") != 0) return;
    dtls->alert_received = 1;
    snprintf(dtls->error, sizeof(dtls->error), "the peer sent a fatal alert: %s", SSL_alert_desc_string_long(value));
}

voice_dtls *voice_dtls_new(voice_dtls_identity *identity, int is_server, unsigned int mtu,
                           unsigned int initial_timeout_ms) {
    pthread_once(&datagram_method_once, make_datagram_method);
    if (datagram_method == NULL || identity == NULL) return NULL;
    voice_dtls *dtls = calloc(1, sizeof(*dtls));
    if (dtls == NULL) return NULL;
    dtls->initial_timeout_us = (initial_timeout_ms == 0 ? 1000 : initial_timeout_ms) * 1000u;
    if (dtls->initial_timeout_us > MAX_TIMEOUT_US) dtls->initial_timeout_us = MAX_TIMEOUT_US;
    dtls->ssl = SSL_new(identity->ctx);
    BIO *bio = BIO_new(datagram_method);
    if (dtls->ssl == NULL || bio == NULL) {
        BIO_free(bio);
        voice_dtls_free(dtls);
        ERR_clear_error();
        return NULL;
    }
    BIO_set_data(bio, dtls);
    SSL_set_bio(dtls->ssl, bio, bio); /* one reference, owned by the SSL */
    SSL_set_app_data(dtls->ssl, dtls);
    SSL_set_info_callback(dtls->ssl, note_alert);
    DTLS_set_timer_cb(dtls->ssl, next_timeout);
    SSL_set_mtu(dtls->ssl, mtu < 512 ? 512 : mtu);
    if (is_server) SSL_set_accept_state(dtls->ssl); else SSL_set_connect_state(dtls->ssl);
    return dtls;
}

void voice_dtls_free(voice_dtls *dtls) {
    if (dtls == NULL) return;
    SSL_free(dtls->ssl);
    struct outgoing *node = dtls->out_head;
    while (node != NULL) {
        struct outgoing *next = node->next;
        free(node);
        node = next;
    }
    free(dtls);
}

int voice_dtls_feed(voice_dtls *dtls, const uint8_t *data, size_t len) {
    if (len == 0 || len > MAX_DATAGRAM || dtls->inbox_count == INBOX_SLOTS) return 0;
    int slot = (dtls->inbox_head + dtls->inbox_count) % INBOX_SLOTS;
    memcpy(dtls->inbox[slot], data, len);
    dtls->inbox_len[slot] = len;
    dtls->inbox_count++;
    return 1;
}

static int fail(voice_dtls *dtls) {
    dtls->failed = 1;
    if (!dtls->alert_received) {
        unsigned long code = ERR_peek_last_error();
        if (code != 0) ERR_error_string_n(code, dtls->error, sizeof(dtls->error));
        else snprintf(dtls->error, sizeof(dtls->error), "DTLS protocol error");
    }
    ERR_clear_error();
    return VOICE_DTLS_FAILED;
}

int voice_dtls_advance(voice_dtls *dtls) {
    if (dtls->failed) return VOICE_DTLS_FAILED;
    if (dtls->closed) return VOICE_DTLS_CLOSED;
    ERR_clear_error();
    if (!SSL_is_init_finished(dtls->ssl)) {
        int result = SSL_do_handshake(dtls->ssl);
        if (result != 1) {
            int error = SSL_get_error(dtls->ssl, result);
            if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) return VOICE_DTLS_IN_PROGRESS;
            return fail(dtls);
        }
    }
    /* Connected: read what is left (alerts, retransmitted Finished flights, which OpenSSL answers
     * by retransmitting its own); application data is not used and is dropped. */
    uint8_t scratch[MAX_DATAGRAM];
    for (;;) {
        int result = SSL_read(dtls->ssl, scratch, sizeof(scratch));
        if (result > 0) continue;
        int error = SSL_get_error(dtls->ssl, result);
        if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) break;
        if (error == SSL_ERROR_ZERO_RETURN) {
            dtls->closed = 1;
            return VOICE_DTLS_CLOSED;
        }
        return fail(dtls);
    }
    return VOICE_DTLS_CONNECTED;
}

long voice_dtls_pop(voice_dtls *dtls, uint8_t *buffer, size_t cap) {
    struct outgoing *node = dtls->out_head;
    if (node == NULL) return 0;
    if (node->len > cap) return -1;
    long len = (long)node->len;
    memcpy(buffer, node->bytes, node->len);
    dtls->out_head = node->next;
    if (dtls->out_head == NULL) dtls->out_tail = NULL;
    free(node);
    return len;
}

long voice_dtls_timeout_ms(voice_dtls *dtls) {
    struct timeval remaining;
    if (DTLSv1_get_timeout(dtls->ssl, &remaining) != 1) return -1;
    return (long)remaining.tv_sec * 1000 + ((long)remaining.tv_usec + 999) / 1000;
}

int voice_dtls_handle_timeout(voice_dtls *dtls) {
    if (dtls->failed || dtls->closed) return 0;
    int result = DTLSv1_handle_timeout(dtls->ssl);
    if (result < 0) {
        dtls->failed = 1;
        snprintf(dtls->error, sizeof(dtls->error), "no answer after repeated retransmissions");
        ERR_clear_error();
        return -1;
    }
    return result > 0 ? 1 : 0;
}

int voice_dtls_peer_fingerprint(voice_dtls *dtls, const char *digest, uint8_t *out, unsigned int *out_len) {
    const EVP_MD *md = digest_named(digest);
    X509 *peer = SSL_get1_peer_certificate(dtls->ssl);
    int ok = md != NULL && peer != NULL && X509_digest(peer, md, out, out_len) == 1;
    X509_free(peer);
    return ok;
}

int voice_dtls_srtp_profile(voice_dtls *dtls) {
    SRTP_PROTECTION_PROFILE *profile = SSL_get_selected_srtp_profile(dtls->ssl);
    return profile == NULL ? 0 : (int)profile->id;
}

int voice_dtls_export_srtp_keys(voice_dtls *dtls, uint8_t *out, size_t len) {
    static const char label[] = "EXTRACTOR-dtls_srtp";
    if (!SSL_is_init_finished(dtls->ssl)) return 0;
    int ok = SSL_export_keying_material(dtls->ssl, out, len, label, sizeof(label) - 1, NULL, 0, 0) == 1;
    ERR_clear_error();
    return ok;
}

void voice_dtls_shutdown(voice_dtls *dtls) {
    if (dtls->failed) return;
    SSL_shutdown(dtls->ssl);
    ERR_clear_error();
}

const char *voice_dtls_version(voice_dtls *dtls) { return SSL_get_version(dtls->ssl); }

const char *voice_dtls_cipher(voice_dtls *dtls) {
    const char *name = SSL_get_cipher_name(dtls->ssl);
    return name == NULL ? "" : name;
}

const char *voice_dtls_error(voice_dtls *dtls) { return dtls->error; }

int voice_dtls_failure_was_alert(voice_dtls *dtls) { return dtls->alert_received; }
