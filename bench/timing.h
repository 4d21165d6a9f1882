/* bench/timing.h: the timing helpers of the bench drivers (bench/peers_driver.c,
 * bench/levels_driver.c), included by each; never part of srlab's build.
 *   now(cpu)          seconds of the process's CPU time (cpu != 0) or of the monotonic clock;
 *   median(t, n)      the median of n times (sorts t);
 *   copy_bytes        memcpy of the same bytes, each OpenMP thread copying its share: the
 *                     reference the drivers report ratios against. */
#ifndef SRL_BENCH_TIMING_H
#define SRL_BENCH_TIMING_H

#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* memcpy of the same bytes, each thread copying its share. */
static inline void copy_bytes(void *dst, const void *src, size_t bytes)
{
#ifdef _OPENMP
#pragma omp parallel
    {
        const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        const size_t lo = bytes / nt * t, hi = t + 1 == nt ? bytes : bytes / nt * (t + 1);
        memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
#else
    memcpy(dst, src, bytes);
#endif
}

#endif
