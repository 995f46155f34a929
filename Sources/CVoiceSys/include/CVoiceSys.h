#ifndef CVOICESYS_H
#define CVOICESYS_H

/*
 * Linux event APIs the media engine waits on. Swift's Glibc module does not
 * export these headers, so this target re-exports them.
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#endif
