#include "CVoiceDNS.h"

#include <ares.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

struct voice_dns {
    ares_channel channel;
};

static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static int library_status = ARES_SUCCESS;

static void library_init(void) { library_status = ares_library_init(ARES_LIB_INIT_ALL); }

voice_dns *voice_dns_create(const char *servers, int timeout_ms, int tries, int *status) {
    pthread_once(&library_once, library_init);
    if (library_status != ARES_SUCCESS) {
        *status = library_status;
        return NULL;
    }
    voice_dns *dns = calloc(1, sizeof(*dns));
    if (dns == NULL) {
        *status = ARES_ENOMEM;
        return NULL;
    }
    struct ares_options options;
    memset(&options, 0, sizeof(options));
    options.timeout = timeout_ms;
    options.tries = tries;
    options.flags = ARES_FLAG_EDNS;
    options.ednspsz = 1232;
    int mask = ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_FLAGS | ARES_OPT_EDNSPSZ;
    *status = ares_init_options(&dns->channel, &options, mask);
    if (*status != ARES_SUCCESS) {
        free(dns);
        return NULL;
    }
    if (servers != NULL) {
        *status = ares_set_servers_ports_csv(dns->channel, servers);
        if (*status != ARES_SUCCESS) {
            ares_destroy(dns->channel);
            free(dns);
            return NULL;
        }
    }
    return dns;
}

struct voice_dns_pending {
    voice_dns_callback callback;
    void *context;
};

static void finished(void *arg, int status, int timeouts, unsigned char *answer, int length) {
    (void)timeouts;
    struct voice_dns_pending *pending = arg;
    pending->callback(pending->context, status, answer, answer == NULL ? 0 : length);
    free(pending);
}

void voice_dns_query(voice_dns *dns, const char *name, int type, voice_dns_callback callback, void *context) {
    struct voice_dns_pending *pending = malloc(sizeof(*pending));
    if (pending == NULL) {
        callback(context, ARES_ENOMEM, NULL, 0);
        return;
    }
    pending->callback = callback;
    pending->context = context;
    ares_query(dns->channel, name, 1 /* class IN */, type, finished, pending);
}

int voice_dns_process(voice_dns *dns, int wake_fd, int max_ms) {
    ares_socket_t sockets[ARES_GETSOCK_MAXNUM];
    int bits = ares_getsock(dns->channel, sockets, ARES_GETSOCK_MAXNUM);
    struct pollfd fds[ARES_GETSOCK_MAXNUM + 1];
    nfds_t count = 0;
    for (int i = 0; i < ARES_GETSOCK_MAXNUM; i++) {
        short events = 0;
        if (ARES_GETSOCK_READABLE(bits, i)) events |= POLLIN;
        if (ARES_GETSOCK_WRITABLE(bits, i)) events |= POLLOUT;
        if (events == 0) continue;
        fds[count].fd = sockets[i];
        fds[count].events = events;
        fds[count].revents = 0;
        count++;
    }
    fds[count].fd = wake_fd;
    fds[count].events = POLLIN;
    fds[count].revents = 0;
    struct timeval most = {max_ms / 1000, (max_ms % 1000) * 1000};
    struct timeval wait;
    struct timeval *next = ares_timeout(dns->channel, &most, &wait);
    int timeout_ms = (int)(next->tv_sec * 1000 + (next->tv_usec + 999) / 1000);
    int ready = poll(fds, count + 1, timeout_ms);
    if (ready < 0) return -1;
    int processed = 0;
    for (nfds_t i = 0; i < count; i++) {
        if (fds[i].revents == 0) continue;
        ares_socket_t readable = (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) ? fds[i].fd : ARES_SOCKET_BAD;
        ares_socket_t writable = (fds[i].revents & POLLOUT) ? fds[i].fd : ARES_SOCKET_BAD;
        ares_process_fd(dns->channel, readable, writable);
        processed = 1;
    }
    // Timeouts (and retries) are processed with no socket.
    if (!processed) ares_process_fd(dns->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
    return (fds[count].revents & POLLIN) ? 1 : 0;
}

void voice_dns_destroy(voice_dns *dns) {
    ares_destroy(dns->channel);
    free(dns);
}

int voice_dns_hosts_file(voice_dns *dns, const char *name, int family, unsigned char *out, int capacity) {
    struct hostent *host = NULL;
    if (ares_gethostbyname_file(dns->channel, name, family, &host) != ARES_SUCCESS || host == NULL) return 0;
    int count = 0;
    int size = host->h_length;
    if (size == 4 || size == 16) {
        for (char **address = host->h_addr_list; *address != NULL && (count + 1) * size <= capacity; address++) {
            memcpy(out + count * size, *address, (size_t)size);
            count++;
        }
    }
    ares_free_hostent(host);
    return count;
}

const char *voice_dns_status_text(int status) { return ares_strerror(status); }
