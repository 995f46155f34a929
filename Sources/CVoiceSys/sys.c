#include "CVoiceSys.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

ssize_t voice_recv_timestamped(int fd, void *buffer, size_t length, struct timespec *arrival, int *has_arrival) {
    struct iovec iov = {.iov_base = buffer, .iov_len = length};
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    *has_arrival = 0;
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
    if (n < 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            memcpy(arrival, CMSG_DATA(c), sizeof(struct timespec));
            *has_arrival = 1;
        }
    }
    return n;
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
