#ifndef CVOICESYS_H
#define CVOICESYS_H

/*
 * Linux event APIs the media engine waits on. Swift's Glibc module does not
 * export these headers, so this target re-exports them.
 */
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <time.h>

/*
 * Receives one datagram without blocking and returns its length (or -1 with
 * errno set). When the socket has SO_TIMESTAMPNS enabled, *arrival receives
 * the kernel's receive time (CLOCK_REALTIME) and *has_arrival is set to 1.
 * A C function because reading the timestamp needs the CMSG_* macros.
 */
ssize_t voice_recv_timestamped(int fd, void *buffer, size_t length, struct timespec *arrival, int *has_arrival);

/*
 * Asks the kernel to queue ICMP errors for datagrams this UDP socket sends
 * (IP_RECVERR, or IPV6_RECVERR when family is AF_INET6): without it Linux
 * drops them for an unconnected socket. Returns 0, or -1 with errno set.
 */
int voice_enable_datagram_errors(int fd, int family);

/*
 * Reads one queued error without blocking (recvmsg with MSG_ERRQUEUE). Returns
 * 1 when an error was read: *destination (*destination_length bytes) is where
 * the failed datagram was going, *error its errno (ECONNREFUSED for ICMP port
 * unreachable) and *from_icmp 1 when a router or the peer sent it (ICMP or
 * ICMPv6), 0 for a local error. Returns 0 when the queue is empty, -1 with
 * errno set on another failure. A C function because the error comes in a
 * control message (CMSG_* macros).
 */
int voice_recv_datagram_error(int fd, struct sockaddr_storage *destination, socklen_t *destination_length,
                              int *error, int *from_icmp);

/*
 * Makes the C stdout stream (where Swift's print writes) line-buffered, so a
 * command's output reaches a log file or pipe line by line. A C function
 * because Swift 6 refuses to touch the global `stdout` from Swift code.
 */
/// Opens a non-blocking NETLINK_ROUTE socket subscribed to the multicast `groups` (RTMGRP_*),
/// with a 1 MiB receive buffer. With `netns_path` (e.g. /run/netns/NAME) the socket is created
/// inside that network namespace, from a short-lived thread, and watches it from then on.
/// Returns the descriptor, or -1 with `*error` set to an errno.
int voice_open_route_socket(const char *netns_path, unsigned groups, int *error);

/// Sends a request to the kernel on a netlink socket.
ssize_t voice_route_socket_send(int fd, const void *bytes, size_t length);

static inline void voice_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

#endif
