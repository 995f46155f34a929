#define _GNU_SOURCE
#include "CVoiceSys.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <string.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int voice_enable_packet_info(int fd, int family) {
    int on = 1;
    if (family == AF_INET6) return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof on);
    return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof on);
}

int voice_enable_dual_stack(int fd) {
    int off = 0;
    return setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
}

int voice_is_dual_stack(int fd) {
    struct sockaddr_storage bound;
    socklen_t length = sizeof bound;
    if (getsockname(fd, (struct sockaddr *)&bound, &length) != 0 || bound.ss_family != AF_INET6) return 0;
    int only = 1;
    socklen_t size = sizeof only;
    if (getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &only, &size) != 0) return 0;
    return only == 0;
}

void voice_unmap_v4(struct sockaddr_storage *address, socklen_t *length) {
    if (address->ss_family != AF_INET6) return;
    struct sockaddr_in6 six;
    memcpy(&six, address, sizeof six);
    if (!IN6_IS_ADDR_V4MAPPED(&six.sin6_addr)) return;
    struct sockaddr_in four;
    memset(&four, 0, sizeof four);
    four.sin_family = AF_INET;
    four.sin_port = six.sin6_port;
    memcpy(&four.sin_addr, &six.sin6_addr.s6_addr[12], 4);
    memset(address, 0, sizeof *address);
    memcpy(address, &four, sizeof four);
    if (length) *length = sizeof four;
}

void voice_map_v4(struct sockaddr_storage *address, socklen_t *length) {
    if (address->ss_family != AF_INET) return;
    struct sockaddr_in four;
    memcpy(&four, address, sizeof four);
    struct sockaddr_in6 six;
    memset(&six, 0, sizeof six);
    six.sin6_family = AF_INET6;
    six.sin6_port = four.sin_port;
    six.sin6_addr.s6_addr[10] = 0xff;
    six.sin6_addr.s6_addr[11] = 0xff;
    memcpy(&six.sin6_addr.s6_addr[12], &four.sin_addr, 4);
    memset(address, 0, sizeof *address);
    memcpy(address, &six, sizeof six);
    if (length) *length = sizeof six;
}

ssize_t voice_recv_packet(int fd, void *buffer, size_t length, struct timespec *arrival, int *has_arrival,
                          struct sockaddr_storage *source, socklen_t *source_length,
                          struct sockaddr_storage *destination, int *has_destination) {
    struct iovec iov = {.iov_base = buffer, .iov_len = length};
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(struct in6_pktinfo)) +
                   CMSG_SPACE(sizeof(struct in_pktinfo))];
        struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    msg.msg_name = source;
    msg.msg_namelen = sizeof(struct sockaddr_storage);
    *has_arrival = 0;
    *has_destination = 0;
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
    if (n < 0) return n;
    *source_length = msg.msg_namelen;
    voice_unmap_v4(source, source_length);  /* an IPv4 sender on a dual-stack socket */
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            memcpy(arrival, CMSG_DATA(c), sizeof(struct timespec));
            *has_arrival = 1;
        } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
            struct in_pktinfo info;
            memcpy(&info, CMSG_DATA(c), sizeof info);
            memset(destination, 0, sizeof *destination);
            ((struct sockaddr_in *)destination)->sin_family = AF_INET;
            ((struct sockaddr_in *)destination)->sin_addr = info.ipi_addr;
            *has_destination = 1;
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
            struct in6_pktinfo info;
            memcpy(&info, CMSG_DATA(c), sizeof info);
            memset(destination, 0, sizeof *destination);
            ((struct sockaddr_in6 *)destination)->sin6_family = AF_INET6;
            ((struct sockaddr_in6 *)destination)->sin6_addr = info.ipi6_addr;
            voice_unmap_v4(destination, NULL);
            *has_destination = 1;
        }
    }
    return n;
}

ssize_t voice_send_from(int fd, const void *buffer, size_t length, const struct sockaddr_storage *destination,
                        socklen_t destination_length, const struct sockaddr_storage *source) {
    struct iovec iov = {.iov_base = (void *)buffer, .iov_len = length};
    union {
        char bytes[CMSG_SPACE(sizeof(struct in6_pktinfo))];
        struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    memset(&control, 0, sizeof control);
    msg.msg_name = (void *)destination;
    msg.msg_namelen = destination_length;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    struct cmsghdr *c = (struct cmsghdr *)control.bytes;
    struct in6_pktinfo info6;
    struct in_pktinfo info4;
    memset(&info6, 0, sizeof info6);
    memset(&info4, 0, sizeof info4);
    int v6 = source->ss_family == AF_INET6;
    if (v6) info6.ipi6_addr = ((const struct sockaddr_in6 *)source)->sin6_addr;
    else info4.ipi_spec_dst = ((const struct sockaddr_in *)source)->sin_addr;
    size_t size = v6 ? sizeof info6 : sizeof info4;
    c->cmsg_level = v6 ? IPPROTO_IPV6 : IPPROTO_IP;
    c->cmsg_type = v6 ? IPV6_PKTINFO : IP_PKTINFO;
    c->cmsg_len = CMSG_LEN(size);
    memcpy(CMSG_DATA(c), v6 ? (const void *)&info6 : (const void *)&info4, size);
    msg.msg_controllen = CMSG_SPACE(size);
    return sendmsg(fd, &msg, MSG_DONTWAIT);
}

ssize_t voice_recv_timestamped(int fd, void *buffer, size_t length, struct timespec *arrival, int *has_arrival,
                               struct sockaddr_storage *source, socklen_t *source_length) {
    struct sockaddr_storage sender, local;
    socklen_t sender_length = 0;
    int has_local = 0;
    int wants_source = source != NULL && source_length != NULL;
    return voice_recv_packet(fd, buffer, length, arrival, has_arrival, wants_source ? source : &sender,
                             wants_source ? source_length : &sender_length, &local, &has_local);
}

int voice_enable_datagram_errors(int fd, int family) {
    int on = 1;
    if (family == AF_INET6) return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof on);
    return setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof on);
}

int voice_recv_datagram_error(int fd, struct sockaddr_storage *destination, socklen_t *destination_length,
                              int *error, int *from_icmp) {
    char data[1];
    struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
    union {
        char bytes[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))];
        struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    memset(destination, 0, sizeof *destination);
    msg.msg_name = destination;
    msg.msg_namelen = sizeof *destination;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
    *destination_length = msg.msg_namelen;
    *error = 0;
    *from_icmp = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        int isV4 = c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR;
        int isV6 = c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR;
        if (!isV4 && !isV6) continue;
        struct sock_extended_err extended;
        memcpy(&extended, CMSG_DATA(c), sizeof extended);
        *error = (int)extended.ee_errno;
        *from_icmp = extended.ee_origin == SO_EE_ORIGIN_ICMP || extended.ee_origin == SO_EE_ORIGIN_ICMP6;
    }
    return 1;
}

#include <fcntl.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

struct voice_socket_request {
    const char *netns_path;
    int domain, type, protocol;
    int fd;
    int error;
};

int voice_enter_namespace(const char *netns_path) {
    int ns = open(netns_path, O_RDONLY | O_CLOEXEC);
    if (ns < 0) return errno;
    int rc = setns(ns, CLONE_NEWNET) == 0 ? 0 : errno;
    close(ns);
    return rc;
}

static void *voice_open_socket_in_namespace_thread(void *argument) {
    struct voice_socket_request *request = argument;
    request->error = voice_enter_namespace(request->netns_path);
    if (request->error != 0) return NULL;
    request->fd = socket(request->domain, request->type | SOCK_CLOEXEC, request->protocol);
    if (request->fd < 0) request->error = errno;
    return NULL;
}

int voice_open_socket_in_namespace(const char *netns_path, int domain, int type, int protocol, int *error) {
    struct voice_socket_request request = {
        .netns_path = netns_path, .domain = domain, .type = type, .protocol = protocol, .fd = -1, .error = 0};
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, voice_open_socket_in_namespace_thread, &request);
    if (rc != 0) {
        *error = rc;
        return -1;
    }
    pthread_join(thread, NULL);
    *error = request.error;
    return request.fd;
}

int voice_open_route_socket(const char *netns_path, unsigned groups, int *error) {
    int fd;
    if (netns_path == NULL) {
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
        if (fd < 0) {
            *error = errno;
            return -1;
        }
    } else {
        /* Created inside the namespace, the socket watches it from then on, wherever it is bound. */
        fd = voice_open_socket_in_namespace(netns_path, AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK, NETLINK_ROUTE, error);
        if (fd < 0) return -1;
    }
    int size = 1 << 20;
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    struct sockaddr_nl local;
    memset(&local, 0, sizeof local);
    local.nl_family = AF_NETLINK;
    local.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    *error = 0;
    return fd;
}

ssize_t voice_route_socket_send(int fd, const void *bytes, size_t length) {
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    return sendto(fd, bytes, length, 0, (struct sockaddr *)&kernel, sizeof kernel);
}

/* struct sched_attr, as the kernel defines it (uapi/linux/sched/types.h). */
struct voice_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
    uint32_t sched_util_min;
    uint32_t sched_util_max;
};

int voice_set_thread_slice(unsigned long long slice_ns) {
    struct voice_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    /* sched_getattr first: keep the nice value the thread has. */
    if (syscall(SYS_sched_getattr, 0, &attr, (unsigned)sizeof attr, 0) != 0) return -1;
    if (attr.sched_policy != SCHED_OTHER) { errno = EPERM; return -1; }
    attr.size = sizeof attr;
    attr.sched_flags = 0;
    attr.sched_runtime = slice_ns;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}

unsigned long long voice_thread_slice(void) {
    struct voice_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, (unsigned)sizeof attr, 0) != 0) return 0;
    return attr.sched_runtime;
}

int voice_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

int voice_thread_nice(void) {
    errno = 0;
    return getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
}
