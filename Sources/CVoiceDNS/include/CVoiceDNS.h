#ifndef CVOICEDNS_H
#define CVOICEDNS_H

#include <stdint.h>

/// One c-ares channel driven by the thread that owns it. Every call but create is made on
/// that thread.
typedef struct voice_dns voice_dns;

/// A finished query: c-ares's status (ARES_SUCCESS, ARES_ENOTFOUND, ARES_ETIMEOUT, ...) and
/// the raw answer, when one came (NULL otherwise), valid only during the call.
typedef void (*voice_dns_callback)(void *context, int status, const unsigned char *answer, int length);

/// A channel asking `servers` ("127.0.0.1:15353,[::1]:53"; NULL: the system's), each query
/// waiting `timeout_ms` per try, `tries` tries per server, with EDNS and a TCP retry of a
/// truncated answer. NULL on failure, with the c-ares status in `status`.
voice_dns *voice_dns_create(const char *servers, int timeout_ms, int tries, int *status);

/// Starts a query for `name` of record `type` (class IN); `callback` runs inside a later
/// voice_dns_process (or voice_dns_destroy, with ARES_EDESTRUCTION).
void voice_dns_query(voice_dns *dns, const char *name, int type, voice_dns_callback callback, void *context);

/// Waits up to `max_ms` for the channel's sockets, `wake_fd` (readable: return early) and the
/// channel's next timeout, then processes what is ready (callbacks run here). Returns 1 when
/// `wake_fd` became readable, 0 otherwise, -1 when poll failed.
int voice_dns_process(voice_dns *dns, int wake_fd, int max_ms);

/// Cancels every query (their callbacks run with ARES_EDESTRUCTION) and frees the channel.
void voice_dns_destroy(voice_dns *dns);

/// The addresses the local hosts file (/etc/hosts) gives `name` for `family` (AF_INET or
/// AF_INET6), written one after another (4 or 16 bytes each) into `out`, at most `capacity`
/// bytes: how many addresses were written; 0 when the file does not name it.
int voice_dns_hosts_file(voice_dns *dns, const char *name, int family, unsigned char *out, int capacity);

/// c-ares's text for `status`.
const char *voice_dns_status_text(int status);

#endif
