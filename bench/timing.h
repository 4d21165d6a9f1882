/* bench/timing.h: the timing helpers of the bench drivers (bench/peers_driver.c,
 * bench/levels_driver.c), included by each; never part of srlab's build.
 *   now(cpu)          seconds of the process's CPU time (cpu != 0) or of the monotonic clock;
 *   median(t, n)      the median of n times (sorts t);
 *   words, list_option, clock_now, spread   a list of sizes or thread counts, the drivers'
 *                     --sizes/--threads/--reps, the thread's CPU time or the wall clock,
 *                     "median (smallest-largest)";
 *   copy_bytes        memcpy of the same bytes, each OpenMP thread copying its share: the
 *                     reference the drivers report ratios against;
 *   stream_copy_bytes the same copy with non-temporal (streaming) stores, which skip the read
 *                     of each destination line that an ordinary store costs: about the fastest
 *                     any elementwise kernel can move these bytes, so the ceiling of what a
 *                     rounding kernel can gain over another one that runs at memory speed;
 *   evict_bytes       every cache line of an array out of every cache level (written back if
 *                     dirty): the drivers run it on a case's arrays before each contender when
 *                     they are beyond the caches (EVICT_MIN_BYTES), so that each one starts
 *                     from memory, whatever ran before it (a contender that followed one which
 *                     had just read the same input would find its end still in the caches). */
#ifndef SRL_BENCH_TIMING_H
#define SRL_BENCH_TIMING_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

static inline double now(int cpu)
{
    struct timespec ts;
    clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The median over n repeats of ta[i] / tb[i], the two contenders' times in repeat i: how many
 * times faster b ran than a, paired by repeat (runs moments apart see the same machine, which
 * two medians taken apart would not). q: room for n values; ta and tb are left as they are
 * (median sorts what it is given). */
static inline double paired_ratio(double *q, const double *ta, const double *tb, int n)
{
    for (int i = 0; i < n; i++)
        q[i] = ta[i] / tb[i];
    return median(q, n);
}

/* The drivers' lists and spreads (bench/blas_driver.c, bench/accum_driver.c). */
#define MAXW 16  /* words in a list */
#define MAXR 101 /* repeats */

/* The positive integers (at most 100000) of a space-separated list into out (at most MAXW);
 * their number, or -1 for a malformed list. */
static inline int words(const char *s, int *out)
{
    int n = 0;
    char *end;
    for (;;) {
        while (*s == ' ')
            s++;
        if (!*s)
            return n;
        const long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 100000 || n == MAXW || (*end && *end != ' '))
            return -1;
        out[n++] = (int)v;
        s = end;
    }
}

/* The options the drivers share, argv[*i] with its value after it: --sizes LIST, --threads LIST,
 * --reps N. 1 when it was one of them (*i then at its value), 0 when it is none. */
static inline int list_option(int argc, char **argv, int *i, int *sizes, int *ns, int *threads,
                              int *nt, int *reps)
{
    if (*i + 1 >= argc)
        return 0;
    if (!strcmp(argv[*i], "--sizes"))
        *ns = words(argv[++*i], sizes);
    else if (!strcmp(argv[*i], "--threads"))
        *nt = words(argv[++*i], threads);
    else if (!strcmp(argv[*i], "--reps"))
        *reps = atoi(argv[++*i]);
    else
        return 0;
    return 1;
}

/* Seconds: the calling thread's CPU time (cpu), or the monotonic clock. */
static inline double clock_now(int cpu)
{
    struct timespec ts;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "median (smallest-largest)" of n values (sorts them) */
static inline void spread(char *buf, size_t len, double *v, int n)
{
    const double med = median(v, n);
    snprintf(buf, len, "%.2f (%.2f-%.2f)", med, v[0], v[n - 1]);
}

/* One thread's share of stream_copy_bytes: 16-byte streaming stores (SSE2, every x86-64) on the
 * part of dst that is 16-byte aligned, memcpy for the ragged ends; memcpy alone elsewhere. */
static inline void stream_copy_part(char *dst, const char *src, size_t bytes)
{
#ifdef __SSE2__
    size_t head = (size_t)(-(uintptr_t)dst & 15u);
    if (head > bytes)
        head = bytes;
    memcpy(dst, src, head);
    size_t i = head;
    for (; i + 64 <= bytes; i += 64)
        for (size_t q = 0; q < 64; q += 16)
            _mm_stream_si128((__m128i *)(void *)(dst + i + q),
                             _mm_loadu_si128((const __m128i *)(const void *)(src + i + q)));
    memcpy(dst + i, src + i, bytes - i);
    _mm_sfence();
#else
    memcpy(dst, src, bytes);
#endif
}

/* Copy bytes, each OpenMP thread its share, with memcpy or (stream) streaming stores. */
static inline void split_copy(void *dst, const void *src, size_t bytes, int stream)
{
#ifdef _OPENMP
#pragma omp parallel
#endif
    {
        size_t nt = 1, t = 0;
#ifdef _OPENMP
        nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
#endif
        const size_t lo = bytes / nt * t, hi = t + 1 == nt ? bytes : bytes / nt * (t + 1);
        if (stream)
            stream_copy_part((char *)dst + lo, (const char *)src + lo, hi - lo);
        else
            memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
}

static inline void copy_bytes(void *dst, const void *src, size_t bytes)
{
    split_copy(dst, src, bytes, 0);
}

static inline void stream_copy_bytes(void *dst, const void *src, size_t bytes)
{
    split_copy(dst, src, bytes, 1);
}

/* Arrays of at least this many bytes are evicted before each contender (evict_bytes): beyond
 * the caches, where the ratios to the streaming copy are taken (the size from which
 * srlab's bulk kernels store with streaming stores too). */
#define EVICT_MIN_BYTES ((size_t)16 << 20)

static inline void evict_bytes(const void *p, size_t bytes)
{
#ifdef __SSE2__
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    for (; c < (const char *)p + bytes; c += 64)
        _mm_clflush(c);
    _mm_mfence();
#else
    (void)p, (void)bytes;
#endif
}

#endif
