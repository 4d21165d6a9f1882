/* src/core/threads.h: whether a loop should open an OpenMP region of its own, and each thread's
 * share of one (private).
 *
 * Not inside another region (the GPT's attention runs its (batch, head) pairs on the threads,
 * and each pair's matrix products and roundings would otherwise open a region of one thread
 * apiece: with nesting off, libgomp still sets up a team for each, 600 a step at GPT size b,
 * BENCHMARKS.md), and not when one thread is all there is. A loop that does not fork runs the
 * same iterations on the calling thread; the libraries' loops give the same bits either way. */
#ifndef SRL_CORE_THREADS_H
#define SRL_CORE_THREADS_H

#include <stdbool.h>
#include <stddef.h>

#include "srl_config.h"
#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

static inline bool srl__may_fork(void)
{
#if SRL_HAVE_OPENMP
    return omp_get_level() == 0 && omp_get_max_threads() > 1;
#else
    return false;
#endif
}

/* Thread t's share of n items split over nt threads as a static schedule splits them:
 * [*lo, *lo + *len), contiguous, in thread order, the first n % nt shares one longer (the bulk
 * roundings' split: so each thread rounds what the models' static loops left on its core). */
static inline void srl__share(size_t n, size_t nt, size_t t, size_t *lo, size_t *len)
{
    *lo = n / nt * t + (t < n % nt ? t : n % nt);
    *len = n / nt + (t < n % nt);
}

#endif
