#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

/*
 * Counts heap allocations made on chosen threads. Linking this target into an
 * executable replaces malloc, calloc, realloc and the aligned allocators with
 * thin wrappers around glibc's own (__libc_*) functions; a thread opts in with
 * voice_malloc_counter_track_current_thread(1). Used by tests and the benchmark
 * to prove the media threads allocate nothing in steady state. Not for libraries.
 */

/* Starts (1) or stops (0) counting allocations made by the calling thread. */
void voice_malloc_counter_track_current_thread(int on);

/* Allocations made so far by all tracking threads. */
unsigned long long voice_malloc_counter_tracked_count(void);

/* 1 when allocations are counted; 0 in a sanitizer build, whose allocator is left alone. */
int voice_malloc_counter_is_counting(void);

#endif
