#define _GNU_SOURCE
#include "CVoiceSys.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *mdns_group_v4 = "224.0.0.251";
static const char *mdns_group_v6 = "ff02::fb";

int voice_mdns_open(int family, int *error) {
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = errno;
        return -1;
    }
    int on = 1;
    int hops = 255;
    int ok = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0 &&
             setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) == 0;
    if (ok && family == AF_INET6) {
        ok = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) == 0 &&
             setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof hops) == 0 &&
             setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof on) == 0;
        struct sockaddr_in6 any = {.sin6_family = AF_INET6, .sin6_port = htons(5353), .sin6_addr = in6addr_any};
        ok = ok && bind(fd, (struct sockaddr *)&any, sizeof any) == 0;
    } else if (ok) {
        unsigned char ttl = 255;
        ok = setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl) == 0 &&
             setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof on) == 0;
        struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(5353), .sin_addr.s_addr = htonl(INADDR_ANY)};
        ok = ok && bind(fd, (struct sockaddr *)&any, sizeof any) == 0;
    }
    if (!ok) {
        *error = errno;
        close(fd);
        return -1;
    }
    return fd;
}

int voice_mdns_join(int fd, int family, int index) {
    if (family == AF_INET6) {
        struct ipv6_mreq request = {.ipv6mr_interface = (unsigned)index};
        inet_pton(AF_INET6, mdns_group_v6, &request.ipv6mr_multiaddr);
        return setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &request, sizeof request) == 0 ? 0 : errno;
    }
    struct ip_mreqn request = {.imr_ifindex = index};
    inet_pton(AF_INET, mdns_group_v4, &request.imr_multiaddr);
    return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &request, sizeof request) == 0 ? 0 : errno;
}

ssize_t voice_mdns_send(int fd, int family, int index, const void *bytes, size_t length) {
    if (family == AF_INET6) {
        unsigned interface = (unsigned)index;
        if (setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &interface, sizeof interface) != 0) return -1;
        struct sockaddr_in6 group = {.sin6_family = AF_INET6, .sin6_port = htons(5353), .sin6_scope_id = interface};
        inet_pton(AF_INET6, mdns_group_v6, &group.sin6_addr);
        return sendto(fd, bytes, length, 0, (struct sockaddr *)&group, sizeof group);
    }
    struct ip_mreqn through = {.imr_ifindex = index};
    if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &through, sizeof through) != 0) return -1;
    struct sockaddr_in group = {.sin_family = AF_INET, .sin_port = htons(5353)};
    inet_pton(AF_INET, mdns_group_v4, &group.sin_addr);
    return sendto(fd, bytes, length, 0, (struct sockaddr *)&group, sizeof group);
}

ssize_t voice_mdns_receive(int fd, void *buffer, size_t length, uint8_t *source, int *source_length, int *interface_index) {
    struct sockaddr_storage from;
    char control[256];
    struct iovec vector = {.iov_base = buffer, .iov_len = length};
    struct msghdr message = {
        .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &vector, .msg_iovlen = 1,
        .msg_control = control, .msg_controllen = sizeof control,
    };
    ssize_t received = recvmsg(fd, &message, MSG_DONTWAIT);
    if (received < 0) return -1;
    *interface_index = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
            struct in_pktinfo info;
            memcpy(&info, CMSG_DATA(c), sizeof info);
            *interface_index = info.ipi_ifindex;
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
            struct in6_pktinfo info;
            memcpy(&info, CMSG_DATA(c), sizeof info);
            *interface_index = (int)info.ipi6_ifindex;
        }
    }
    if (from.ss_family == AF_INET6) {
        struct sockaddr_in6 six;
        memcpy(&six, &from, sizeof six);
        memcpy(source, &six.sin6_addr, 16);
        *source_length = 16;
    } else {
        struct sockaddr_in four;
        memcpy(&four, &from, sizeof four);
        memcpy(source, &four.sin_addr, 4);
        *source_length = 4;
    }
    return received;
}
