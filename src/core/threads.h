/* src/core/threads.h: whether a loop should open an OpenMP region of its own, each thread's
 * share of one, and bands of items with stealing (private).
 *
 * Not inside another region (the GPT's attention runs its (batch, head) pairs on the threads,
 * and each pair's matrix products and roundings would otherwise open a region of one thread
 * apiece: with nesting off, libgomp still sets up a team for each, 600 a step at GPT size b,
 * BENCHMARKS.md), and not when one thread is all there is. A loop that does not fork runs the
 * same iterations on the calling thread; the libraries' loops give the same bits either way. */
#ifndef SRL_CORE_THREADS_H
#define SRL_CORE_THREADS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* ---- bands with stealing ----
 * Items [0, n) over nt threads (at most SRL__BANDS_MAX): thread t first takes the items of its
 * band (srl__share's share) from the front, then the items left in the other bands from their
 * back, each item once. Each thread keeps to the items a static schedule would give it while
 * the threads keep pace, and the faster takes over from the slower when they do not: on the
 * 2-vCPU virtual machines we measure on, one vCPU can run 20% slower than the other for a while
 * (host load; which one changes), and a woken worker starts 0.1 ms late. For loops whose items
 * are independent outputs: which thread computes an item never changes a bit. */
#define SRL__BANDS_MAX 64
typedef struct srl__bands {
    _Atomic uint64_t band[SRL__BANDS_MAX]; /* thread t's items left: lo << 32 | hi */
    size_t nt;
} srl__bands;

/* n < 2^32 items over min(nt, SRL__BANDS_MAX) threads (call before the region). */
static inline void srl__bands_init(srl__bands *s, size_t n, size_t nt)
{
    s->nt = nt < 1 ? 1 : nt > SRL__BANDS_MAX ? SRL__BANDS_MAX : nt;
    for (size_t t = 0; t < s->nt; t++) {
        size_t lo, len;
        srl__share(n, s->nt, t, &lo, &len);
        atomic_init(&s->band[t], (uint64_t)lo << 32 | (uint64_t)(lo + len));
    }
}

/* An item of band t: its first (front) or last; false when the band is empty. */
static inline bool srl__band_take(srl__bands *s, size_t t, bool front, size_t *i)
{
    uint64_t v = atomic_load_explicit(&s->band[t], memory_order_relaxed);
    for (;;) {
        const uint64_t lo = v >> 32, hi = v & 0xffffffffu;
        if (lo >= hi)
            return false;
        const uint64_t w = front ? (lo + 1) << 32 | hi : lo << 32 | (hi - 1);
        if (atomic_compare_exchange_weak_explicit(&s->band[t], &v, w, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *i = (size_t)(front ? lo : hi - 1);
            return true;
        }
    }
}

/* The next item for thread `me` (any number: a thread past the bands only steals). */
static inline bool srl__bands_next(srl__bands *s, size_t me, size_t *i)
{
    if (me < s->nt && srl__band_take(s, me, true, i))
        return true;
    for (size_t d = 1; d <= s->nt; d++)
        if (srl__band_take(s, (me + d) % s->nt, false, i))
            return true;
    return false;
}

/* Whether any item is left. */
static inline bool srl__bands_left(srl__bands *s)
{
    for (size_t t = 0; t < s->nt; t++) {
        const uint64_t v = atomic_load_explicit(&s->band[t], memory_order_relaxed);
        if ((v >> 32) < (v & 0xffffffffu))
            return true;
    }
    return false;
}

/* The threads a region would have (1 without OpenMP). */
static inline size_t srl__max_threads(void)
{
#if SRL_HAVE_OPENMP
    return (size_t)omp_get_max_threads();
#else
    return 1;
#endif
}

/* The calling thread's number in its region (0 outside one). */
static inline size_t srl__thread_num(void)
{
#if SRL_HAVE_OPENMP
    return (size_t)omp_get_thread_num();
#else
    return 0;
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
