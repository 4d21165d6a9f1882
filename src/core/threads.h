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

/* Whether OpenMP's worker threads have stacks srlab's loops fit in: at least SRL__WORKER_STACK
 * bytes, as OMP_STACKSIZE (else GOMP_STACKSIZE, else the threads' default, which follows
 * `ulimit -s`) gives them. A loop's body keeps no large array on the stack (its tiles' scratch is
 * on the heap), but the vector kernels keep their registers' spills there, several KiB at some
 * instruction-set levels, and OMP_STACKSIZE=16k leaves a worker about 11 KiB: with smaller stacks
 * every loop runs on the calling thread, whose results are the same (the environment slows srlab
 * down, it cannot crash it; coarse tasks run on threads of srlab's own, below). Decided once. */
#define SRL__WORKER_STACK ((size_t)256 << 10)
bool srl__workers_ok(void);
/* Tests: 1 forks whatever the stacks are (to run every loop's body on small stacks), 0 never
 * forks, -1 decides as above. */
void srl__workers_assume(int ok);

static inline bool srl__may_fork(void)
{
#if SRL_HAVE_OPENMP
    return omp_get_level() == 0 && omp_get_max_threads() > 1 && srl__workers_ok();
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

/* The calling thread's share of n items in the parallel region it is in (all n outside one), as
 * srl__share splits them: a loop over the share writes what `omp for schedule(static)` would
 * have given the thread, so that the thread can go on with what it wrote (the models' fused
 * roundings) without a barrier between. */
static inline void srl__share_mine(size_t n, size_t *lo, size_t *len)
{
#if SRL_HAVE_OPENMP
    srl__share(n, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), lo, len);
#else
    *lo = 0;
    *len = n;
#endif
}

/* ---- coarse tasks (src/core/pool.c) ----
 * A loop over coarse tasks (the runs of a sweep, its validation runs, the seeds of a check):
 * fn(ctx, i, pool) for every i in [0, n), each once, on up to nthreads threads -- the calling
 * thread and threads with a stack of SRL__POOL_STACK bytes, whatever OMP_STACKSIZE says -- taking
 * the items in increasing order as they free up (dynamic scheduling). A non-zero return of fn
 * hands out no further item (items in flight finish). OpenMP regions inside a task run on one
 * thread. Without OpenMP: a serial loop. srl__pool_lock / _unlock: one mutex of the loop, for
 * the work fn must do one task at a time. */
#define SRL__POOL_STACK ((size_t)8 << 20)
typedef struct srl__pool srl__pool;
typedef int (*srl__pool_fn)(void *ctx, size_t i, srl__pool *pool);
void srl__pool_run(size_t n, int nthreads, srl__pool_fn fn, void *ctx);
void srl__pool_lock(srl__pool *pool);
void srl__pool_unlock(srl__pool *pool);

#endif
