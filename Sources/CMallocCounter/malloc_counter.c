#include "CMallocCounter.h"

#include <stdatomic.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VOICE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VOICE_SANITIZED 1
#endif

#ifdef VOICE_SANITIZED
/* A sanitizer brings its own allocator: wrapping glibc's would mix the two. Nothing is counted. */
void voice_malloc_counter_track_current_thread(int on) { (void)on; }
unsigned long long voice_malloc_counter_tracked_count(void) { return 0; }
int voice_malloc_counter_is_counting(void) { return 0; }
#else
int voice_malloc_counter_is_counting(void) { return 1; }

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

static _Atomic unsigned long long tracked_count;
static __thread int tracking;

static inline void count_one(void) {
    if (tracking) atomic_fetch_add_explicit(&tracked_count, 1, memory_order_relaxed);
}

void voice_malloc_counter_track_current_thread(int on) { tracking = on; }

unsigned long long voice_malloc_counter_tracked_count(void) {
    return atomic_load_explicit(&tracked_count, memory_order_relaxed);
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size) {
    count_one();
    return __libc_realloc(ptr, size);
}

void free(void *ptr) { __libc_free(ptr); }

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    count_one();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
#endif
