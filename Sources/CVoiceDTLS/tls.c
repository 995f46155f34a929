#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "CVoiceDTLS.h"

struct voice_tls {
    SSL_CTX *ctx;
    SSL *ssl;
    BIO *in;  /* ciphertext from the socket */
    BIO *out; /* ciphertext for the socket */
    int failed;
    char error[256];
};

static void record_error(voice_tls *tls, const char *what) {
    unsigned long code = ERR_get_error();
    long verify = tls->ssl != NULL ? SSL_get_verify_result(tls->ssl) : X509_V_OK;
    if (verify != X509_V_OK) {
        snprintf(tls->error, sizeof tls->error, "%s: certificate: %s", what, X509_verify_cert_error_string(verify));
    } else if (code != 0) {
        char reason[200];
        ERR_error_string_n(code, reason, sizeof reason);
        snprintf(tls->error, sizeof tls->error, "%s: %s", what, reason);
    } else {
        snprintf(tls->error, sizeof tls->error, "%s", what);
    }
    ERR_clear_error();
    tls->failed = 1;
}

voice_tls *voice_tls_client_new(const char *server_name, const char *ca_file) {
    voice_tls *tls = calloc(1, sizeof *tls);
    if (tls == NULL) return NULL;
    tls->ctx = SSL_CTX_new(TLS_client_method());
    if (tls->ctx == NULL) goto fail;
    SSL_CTX_set_min_proto_version(tls->ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(tls->ctx, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_set_default_verify_paths(tls->ctx) != 1) goto fail;
    if (ca_file != NULL && SSL_CTX_load_verify_locations(tls->ctx, ca_file, NULL) != 1) goto fail;
    tls->ssl = SSL_new(tls->ctx);
    if (tls->ssl == NULL) goto fail;
    tls->in = BIO_new(BIO_s_mem());
    tls->out = BIO_new(BIO_s_mem());
    if (tls->in == NULL || tls->out == NULL) goto fail;
    BIO_set_mem_eof_return(tls->in, -1);
    SSL_set_bio(tls->ssl, tls->in, tls->out);
    SSL_set_connect_state(tls->ssl);
    /* The name is checked against the certificate (an IP address against its IP SANs). */
    ASN1_OCTET_STRING *ip = a2i_IPADDRESS(server_name);
    if (ip != NULL) {
        ASN1_OCTET_STRING_free(ip);
        if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(tls->ssl), server_name) != 1) goto fail;
    } else {
        SSL_set_tlsext_host_name(tls->ssl, server_name);
        if (SSL_set1_host(tls->ssl, server_name) != 1) goto fail;
    }
    return tls;
fail:
    if (tls->ssl != NULL) {
        SSL_free(tls->ssl); /* frees the BIOs it holds */
    } else {
        if (tls->in != NULL) BIO_free(tls->in);
        if (tls->out != NULL) BIO_free(tls->out);
    }
    if (tls->ctx != NULL) SSL_CTX_free(tls->ctx);
    free(tls);
    ERR_clear_error();
    return NULL;
}

void voice_tls_free(voice_tls *tls) {
    if (tls == NULL) return;
    SSL_free(tls->ssl);
    SSL_CTX_free(tls->ctx);
    free(tls);
}

int voice_tls_advance(voice_tls *tls) {
    if (tls->failed) return VOICE_DTLS_FAILED;
    if (SSL_is_init_finished(tls->ssl)) return VOICE_DTLS_CONNECTED;
    int rc = SSL_do_handshake(tls->ssl);
    if (rc == 1) return VOICE_DTLS_CONNECTED;
    int error = SSL_get_error(tls->ssl, rc);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) return VOICE_DTLS_IN_PROGRESS;
    record_error(tls, "TLS handshake");
    return VOICE_DTLS_FAILED;
}

int voice_tls_feed(voice_tls *tls, const uint8_t *bytes, size_t len) {
    return BIO_write(tls->in, bytes, (int)len) == (int)len;
}

size_t voice_tls_pending_output(voice_tls *tls) { return (size_t)BIO_ctrl_pending(tls->out); }

long voice_tls_pop_output(voice_tls *tls, uint8_t *buffer, size_t cap) {
    int n = BIO_read(tls->out, buffer, (int)cap);
    return n > 0 ? n : 0;
}

long voice_tls_write(voice_tls *tls, const uint8_t *bytes, size_t len) {
    if (tls->failed) return -1;
    if (len == 0) return 0;
    int n = SSL_write(tls->ssl, bytes, (int)len);
    if (n > 0) return n;
    record_error(tls, "TLS write");
    return -1;
}

long voice_tls_read(voice_tls *tls, uint8_t *buffer, size_t cap) {
    if (tls->failed) return -1;
    int n = SSL_read(tls->ssl, buffer, (int)cap);
    if (n > 0) return n;
    int error = SSL_get_error(tls->ssl, n);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) return 0;
    if (error == SSL_ERROR_ZERO_RETURN) {
        snprintf(tls->error, sizeof tls->error, "the server closed the TLS connection");
        tls->failed = 1;
        return -1;
    }
    record_error(tls, "TLS read");
    return -1;
}

const char *voice_tls_error(voice_tls *tls) { return tls->error; }
