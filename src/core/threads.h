/* src/core/threads.h: whether a loop should open an OpenMP region of its own (private).
 *
 * Not inside another region (the GPT's attention runs its (batch, head) pairs on the threads,
 * and each pair's matrix products and roundings would otherwise open a region of one thread
 * apiece: with nesting off, libgomp still sets up a team for each, 600 a step at GPT size b,
 * BENCHMARKS.md), and not when one thread is all there is. A loop that does not fork runs the
 * same iterations on the calling thread; the libraries' loops give the same bits either way. */
#ifndef SRL_CORE_THREADS_H
#define SRL_CORE_THREADS_H

#include <stdbool.h>

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

#endif
