#ifndef CVOICESYS_H
#define CVOICESYS_H

/*
 * Linux event APIs the media engine waits on. Swift's Glibc module does not
 * export these headers, so this target re-exports them.
 */
#include <stdint.h>
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
 * When source and source_length are not NULL they receive the sender's address.
 * A C function because reading the timestamp needs the CMSG_* macros.
 */
ssize_t voice_recv_timestamped(int fd, void *buffer, size_t length, struct timespec *arrival, int *has_arrival,
                               struct sockaddr_storage *source, socklen_t *source_length);

/*
 * Asks the kernel to say, for each datagram a UDP socket bound to the wildcard
 * address receives, which local address it was sent to (IP_PKTINFO, or
 * IPV6_RECVPKTINFO when family is AF_INET6). Returns 0, or -1 with errno set.
 */
int voice_enable_packet_info(int fd, int family);

/*
 * Makes an AF_INET6 UDP socket (before bind) carry IPv4 too (IPV6_V6ONLY off,
 * whatever net.ipv6.bindv6only says). Returns 0, or -1 with errno set.
 */
int voice_enable_dual_stack(int fd);

/*
 * Whether fd is an AF_INET6 socket that also carries IPv4 (IPV6_V6ONLY off).
 */
int voice_is_dual_stack(int fd);

/*
 * An IPv4-mapped IPv6 address (::ffff:a.b.c.d) in *address becomes the plain
 * IPv4 one, *length with it; anything else is left alone.
 */
void voice_unmap_v4(struct sockaddr_storage *address, socklen_t *length);

/*
 * An IPv4 address in *address becomes its IPv4-mapped IPv6 form, *length
 * with it (for sending on a dual-stack socket); anything else is left alone.
 */
void voice_map_v4(struct sockaddr_storage *address, socklen_t *length);

/*
 * As voice_recv_timestamped, with the sender always read, and *destination
 * (the local address, port 0) set with *has_destination 1 when the socket has
 * packet info enabled (voice_enable_packet_info).
 */
ssize_t voice_recv_packet(int fd, void *buffer, size_t length, struct timespec *arrival, int *has_arrival,
                          struct sockaddr_storage *source, socklen_t *source_length,
                          struct sockaddr_storage *destination, int *has_destination);

/*
 * Sends one datagram without blocking from the local address in *source (its
 * port is ignored) of a UDP socket bound to the wildcard address: the source
 * address a reply must carry (IP_PKTINFO / IPV6_PKTINFO). Returns what
 * sendmsg(2) returns.
 */
ssize_t voice_send_from(int fd, const void *buffer, size_t length, const struct sockaddr_storage *destination,
                        socklen_t destination_length, const struct sockaddr_storage *source);

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

/// Opens a socket (as socket(2), with SOCK_CLOEXEC added) inside the network namespace at
/// `netns_path`, from a short-lived thread; the socket belongs to that namespace from then on.
/// Returns the descriptor, or -1 with `*error` set to an errno.
int voice_open_socket_in_namespace(const char *netns_path, int domain, int type, int protocol, int *error);

/// Moves the calling thread (only it) into the network namespace at `netns_path`: sockets it
/// opens and threads it starts from then on belong there. Returns 0 or an errno.
int voice_enter_namespace(const char *netns_path);

/// Sends a request to the kernel on a netlink socket.
ssize_t voice_route_socket_send(int fd, const void *bytes, size_t length);

/*
 * Asks the scheduler to serve the calling thread in short slices of `slice_ns`
 * nanoseconds (sched_setattr with SCHED_OTHER and sched_runtime, Linux 6.12+
 * EEVDF). A thread with a shorter slice gets an earlier virtual deadline, so
 * when it wakes it preempts a thread that has been running longer, without
 * getting more of the CPU over time: what a light, latency-sensitive thread
 * such as a SIP event loop wants next to busy media workers. Needs no
 * privilege and keeps the thread's nice value. Returns 0, or -1 with errno set
 * (EINVAL on kernels without custom slices). A C function because glibc has
 * no wrapper for sched_setattr.
 */
int voice_set_thread_slice(unsigned long long slice_ns);

/* The calling thread's scheduler slice in nanoseconds (sched_getattr), or 0. */
unsigned long long voice_thread_slice(void);

/*
 * Sets the calling thread's own nice value (setpriority on its thread id;
 * Linux keeps a nice value per thread). Lowering it needs CAP_SYS_NICE or an
 * RLIMIT_NICE that allows it. Returns 0, or -1 with errno set (EACCES/EPERM
 * when not allowed). A C function because Swift's Glibc module has no gettid.
 */
int voice_set_thread_nice(int nice);

/* The calling thread's nice value (getpriority on its thread id). */
int voice_thread_nice(void);

static inline void voice_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }


/*
 * Multicast DNS (RFC 6762) sockets, for resolving a peer's `.local` ICE candidates.
 *
 * voice_mdns_open: a non-blocking socket on port 5353 of `family` (AF_INET, or AF_INET6
 * IPv6-only), shared with other responders on the host (SO_REUSEADDR, SO_REUSEPORT), with a
 * multicast hop limit of 255 and packet info on. Returns the descriptor, or -1 with *error set.
 * voice_mdns_join: joins the group (224.0.0.251 or ff02::fb) on interface `index`; 0 or an errno.
 * voice_mdns_send: sends to the group out of interface `index`; as sendto(2).
 * voice_mdns_receive: one datagram; `source` gets the sender's address (4 or 16 bytes, its
 * length in *source_length) and *interface_index the interface it came in on (0 if unknown).
 */
int voice_mdns_open(int family, int *error);
int voice_mdns_join(int fd, int family, int index);
ssize_t voice_mdns_send(int fd, int family, int index, const void *bytes, size_t length);
ssize_t voice_mdns_receive(int fd, void *buffer, size_t length, uint8_t *source, int *source_length, int *interface_index);

#endif
