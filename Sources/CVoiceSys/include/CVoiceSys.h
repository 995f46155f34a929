#ifndef CVOICESYS_H
#define CVOICESYS_H

/*
 * Linux event APIs the media engine waits on. Swift's Glibc module does not
 * export these headers, so this target re-exports them.
 */
#include <stdio.h>
#include <sys/epoll.h>
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
 * Makes the C stdout stream (where Swift's print writes) line-buffered, so a
 * command's output reaches a log file or pipe line by line. A C function
 * because Swift 6 refuses to touch the global `stdout` from Swift code.
 */
static inline void voice_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

#endif
