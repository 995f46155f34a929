#include "CVoiceSys.h"

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
