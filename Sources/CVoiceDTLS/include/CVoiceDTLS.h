#ifndef CVOICEDTLS_H
#define CVOICEDTLS_H

/*
 * DTLS-SRTP (RFC 5763, RFC 5764) on Debian's OpenSSL 3, for one media stream.
 *
 * Why a shim: OpenSSL's DTLS is driven through BIOs, callbacks and macros that Swift cannot
 * call (SSL_set_mtu, DTLSv1_get_timeout and SSL_CTX_set_tlsext_use_srtp are macros or take
 * function pointers), and our binaries also carry swift-nio-ssl's prefixed BoringSSL: keeping
 * every OpenSSL type behind opaque pointers here means no Swift module sees two TLS libraries.
 *
 * The session never touches a socket. Datagrams go in with voice_dtls_feed and come out of
 * voice_dtls_pop, one DTLS datagram each (a memory BIO that keeps datagram boundaries), so the
 * media driver sends them on the stream's ICE-selected path.
 */

#include <stddef.h>
#include <stdint.h>

/* A certificate and its private key, with the OpenSSL context built from them. Thread-safe once made. */
typedef struct voice_dtls_identity voice_dtls_identity;
/* One DTLS association. Not thread-safe: one thread at a time. */
typedef struct voice_dtls voice_dtls;

/* voice_dtls_advance results. */
extern const int VOICE_DTLS_IN_PROGRESS;   /* handshaking; send what voice_dtls_pop gives */
extern const int VOICE_DTLS_CONNECTED;     /* handshake done: keys can be exported */
extern const int VOICE_DTLS_CLOSED;        /* the peer sent close_notify */
extern const int VOICE_DTLS_FAILED;        /* a fatal alert or a protocol error: see voice_dtls_error */

/* SRTP protection profile ids (RFC 5764 §4.1.2, RFC 7714 §14.2). */
extern const int VOICE_DTLS_SRTP_AES128_CM_SHA1_80;
extern const int VOICE_DTLS_SRTP_AES128_CM_SHA1_32;
extern const int VOICE_DTLS_SRTP_AEAD_AES_128_GCM;
extern const int VOICE_DTLS_SRTP_AEAD_AES_256_GCM;

/* A fresh self-signed ECDSA P-256 certificate (SHA-256 signature) named `common_name`, valid from a
 * day ago for `days` days, with a random 63-bit serial. NULL on failure. */
voice_dtls_identity *voice_dtls_identity_generate(const char *common_name, int days);
/* An identity from PEM text (certificate, then private key). NULL when either does not parse, or
 * the key does not match the certificate. */
voice_dtls_identity *voice_dtls_identity_from_pem(const char *cert_pem, size_t cert_len,
                                                  const char *key_pem, size_t key_len);
/* The certificate and key as PEM, in buffers the caller frees with voice_dtls_free_buffer.
 * Returns 1 on success, 0 on failure. */
int voice_dtls_identity_to_pem(const voice_dtls_identity *identity, char **cert_pem, size_t *cert_len,
                               char **key_pem, size_t *key_len);
/* The certificate's fingerprint with `digest` ("sha-256", "sha-1", "sha-384", "sha-512", any case):
 * writes up to 64 bytes to out and its length to out_len. Returns 1, or 0 for an unknown digest. */
int voice_dtls_identity_fingerprint(const voice_dtls_identity *identity, const char *digest,
                                    uint8_t *out, unsigned int *out_len);
void voice_dtls_identity_free(voice_dtls_identity *identity);
void voice_dtls_free_buffer(char *buffer);

/* A new association with `identity`, as DTLS server (is_server != 0) or client. DTLS 1.2 only,
 * ECDHE with AES-GCM or ChaCha20 suites, the use_srtp extension offering AEAD_AES_128_GCM,
 * AEAD_AES_256_GCM and AES128_CM_SHA1_80 in that order, the peer's certificate requested and
 * accepted whatever its issuer (RFC 5763 checks it by fingerprint, which the caller does).
 * `mtu` bounds each outgoing datagram; `initial_timeout_ms` is the first retransmission timeout,
 * which doubles on each retransmission up to 3 s. NULL on failure. */
voice_dtls *voice_dtls_new(voice_dtls_identity *identity, int is_server, unsigned int mtu,
                           unsigned int initial_timeout_ms);
void voice_dtls_free(voice_dtls *dtls);

/* Hands one received datagram to the association (copied; at most 4 wait). Returns 1, or 0 when
 * it was dropped: too long (over 2048 bytes) or the queue is full. */
int voice_dtls_feed(voice_dtls *dtls, const uint8_t *data, size_t len);
/* Runs the handshake on what was fed (or, once connected, reads and drops application data and
 * notices alerts). Returns one of VOICE_DTLS_*. */
int voice_dtls_advance(voice_dtls *dtls);
/* Takes the next datagram to send: returns its length, 0 when none waits, -1 when `cap` is too
 * small (the datagram stays queued). */
long voice_dtls_pop(voice_dtls *dtls, uint8_t *buffer, size_t cap);
/* Milliseconds until the retransmission timer expires (0 when it has), or -1 when none runs. */
long voice_dtls_timeout_ms(voice_dtls *dtls);
/* Retransmits the last flight if the timer expired. Returns 1 (retransmitted), 0 (not due), or -1
 * when OpenSSL gave up after too many retransmissions. */
int voice_dtls_handle_timeout(voice_dtls *dtls);
/* The peer certificate's fingerprint with `digest`, as voice_dtls_identity_fingerprint. Returns 0
 * when there is no peer certificate or the digest is unknown. */
int voice_dtls_peer_fingerprint(voice_dtls *dtls, const char *digest, uint8_t *out, unsigned int *out_len);
/* The negotiated SRTP profile id, or 0 when none was negotiated. */
int voice_dtls_srtp_profile(voice_dtls *dtls);
/* RFC 5764 §4.2's keying material (label "EXTRACTOR-dtls_srtp", no context): client key, server
 * key, client salt, server salt. Returns 1, or 0 before the handshake is done. */
int voice_dtls_export_srtp_keys(voice_dtls *dtls, uint8_t *out, size_t len);
/* Queues a close_notify alert (pop it and send it). */
void voice_dtls_shutdown(voice_dtls *dtls);
/* The negotiated protocol and cipher names ("DTLSv1.2", "ECDHE-ECDSA-AES128-GCM-SHA256"). */
const char *voice_dtls_version(voice_dtls *dtls);
const char *voice_dtls_cipher(voice_dtls *dtls);
/* Why the association failed, as OpenSSL put it (empty when it did not). */
const char *voice_dtls_error(voice_dtls *dtls);
/* Whether the last failure was a fatal alert the peer sent (1) or a local error (0). */
int voice_dtls_failure_was_alert(voice_dtls *dtls);

/*
 * A TLS client (1.2 or later) for a stream to a server (a TURN server's `turns:` connection,
 * RFC 8656 over TLS), on memory BIOs like the DTLS association: ciphertext from the socket goes
 * in with voice_tls_feed, ciphertext for the socket comes out of voice_tls_pop_output, and the
 * caller does the socket. The server's certificate is checked against the system's trust store
 * (and `ca_file`, a PEM file, when not NULL) and `server_name` (a host name, sent as SNI, or an
 * IP address). Not thread-safe: one thread at a time.
 */
typedef struct voice_tls voice_tls;

/* NULL on failure. */
voice_tls *voice_tls_client_new(const char *server_name, const char *ca_file);
void voice_tls_free(voice_tls *tls);
/* Runs the handshake on what was fed: VOICE_DTLS_IN_PROGRESS, _CONNECTED or _FAILED (see voice_tls_error). */
int voice_tls_advance(voice_tls *tls);
/* Ciphertext read from the socket. Returns 1, or 0 when it could not be buffered. */
int voice_tls_feed(voice_tls *tls, const uint8_t *bytes, size_t len);
/* Ciphertext waiting to be written to the socket: its length, and up to `cap` bytes of it. */
size_t voice_tls_pending_output(voice_tls *tls);
long voice_tls_pop_output(voice_tls *tls, uint8_t *buffer, size_t cap);
/* Encrypts all of `bytes` (the ciphertext then waits in the output): len, or -1 on failure. */
long voice_tls_write(voice_tls *tls, const uint8_t *bytes, size_t len);
/* Decrypted bytes: > 0, 0 when none are ready yet, -1 when the connection closed or failed. */
long voice_tls_read(voice_tls *tls, uint8_t *buffer, size_t cap);
const char *voice_tls_error(voice_tls *tls);

#endif
