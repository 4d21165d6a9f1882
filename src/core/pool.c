/* src/core/pool.c: the coarse tasks of a parallel loop on threads whose stacks srlab sizes
 * (src/core/threads.h). Not OpenMP's team: OMP_STACKSIZE (or the runtime's default) sizes an
 * OpenMP worker's stack, and a task here is a whole run (a training run with its problem, model,
 * kernels and roundings) or a check's seed, whose depth no environment variable should decide:
 * OMP_STACKSIZE=16k would leave a worker about 11 KiB and crash it. The loops inside a task stay
 * OpenMP's, on one thread (nested parallelism is off: a run's results never depend on it). */
#define _GNU_SOURCE /* pthread_getattr_default_np */
#include "core/threads.h"

#include <stdlib.h>

#include <stdatomic.h>

#if SRL_HAVE_OPENMP
#include <ctype.h>
#include <pthread.h>

/* A stack size as libgomp reads OMP_STACKSIZE: digits, then B, K, M or G (K when none), spaces
 * around; 0 when the text is not one (libgomp then ignores it). */
static size_t parse_stacksize(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    unsigned long long v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > (1ull << 40))
            return (size_t)1 << 40; /* more than enough */
        v = 10 * v + (unsigned)(*s - '0');
    }
    while (isspace((unsigned char)*s))
        s++;
    int shift = 10;
    switch (*s) {
    case 'b': case 'B': shift = 0, s++; break;
    case 'k': case 'K': shift = 10, s++; break;
    case 'm': case 'M': shift = 20, s++; break;
    case 'g': case 'G': shift = 30, s++; break;
    default: break;
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s || v > (1ull << 40))
        return *s ? 0 : (size_t)1 << 40;
    return (size_t)(v << shift);
}

/* The stack of OpenMP's worker threads, as libgomp sets it. */
static size_t worker_stack(void)
{
    const char *names[] = {"OMP_STACKSIZE", "GOMP_STACKSIZE"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        size_t b = v ? parse_stacksize(v) : 0;
        if (b)
            return b;
    }
    pthread_attr_t a;
    size_t b = 0;
    if (pthread_getattr_default_np(&a) == 0) {
        if (pthread_attr_getstacksize(&a, &b) != 0)
            b = 0;
        pthread_attr_destroy(&a);
    }
    return b ? b : SRL__WORKER_STACK; /* unknown: the runtime's own default */
}
#endif

static atomic_int workers_ok = -1, workers_forced = -1;

bool srl__workers_ok(void)
{
    const int forced = atomic_load_explicit(&workers_forced, memory_order_relaxed);
    if (forced >= 0)
        return forced;
    int ok = atomic_load_explicit(&workers_ok, memory_order_relaxed);
    if (ok < 0) {
#if SRL_HAVE_OPENMP
        ok = worker_stack() >= SRL__WORKER_STACK;
#else
        ok = 0;
#endif
        atomic_store_explicit(&workers_ok, ok, memory_order_relaxed);
    }
    return ok;
}

void srl__workers_assume(int ok)
{
    atomic_store_explicit(&workers_forced, ok, memory_order_relaxed);
}

#if SRL_HAVE_OPENMP

typedef struct pool_shared {
    size_t n;
    srl__pool_fn fn;
    void *ctx;
    atomic_size_t next;
    atomic_int stop;
    pthread_mutex_t lock;
    int levels;
} pool_shared;

struct srl__pool {
    pool_shared *sh;
};

/* One thread of the pool: take the next item until none is left or one asked to stop. */
static void *pool_main(void *arg)
{
    pool_shared *sh = arg;
    srl__pool p = {sh};
    omp_set_num_threads(1); /* loops inside a task run on its thread */
    while (!atomic_load(&sh->stop)) {
        const size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->n)
            break;
        if (sh->fn(sh->ctx, i, &p))
            atomic_store(&sh->stop, 1);
    }
    return NULL;
}

void srl__pool_run(size_t n, int nthreads, srl__pool_fn fn, void *ctx)
{
    pool_shared sh = {.n = n, .fn = fn, .ctx = ctx};
    atomic_init(&sh.next, 0);
    atomic_init(&sh.stop, 0);
    pthread_mutex_init(&sh.lock, NULL);
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > n)
        nthreads = n ? (int)n : 1;
    /* nested regions of every thread, the pool's own included, run on one thread */
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(1);
    pthread_t *th = malloc((size_t)nthreads * sizeof *th);
    int started = 0;
    pthread_attr_t attr;
    const int have_attr = pthread_attr_init(&attr) == 0 &&
                          pthread_attr_setstacksize(&attr, SRL__POOL_STACK) == 0;
    for (int t = 1; th && have_attr && t < nthreads; t++) {
        if (pthread_create(&th[started], &attr, pool_main, &sh) != 0)
            break; /* fewer threads: the same items, the same results */
        started++;
    }
    if (have_attr)
        pthread_attr_destroy(&attr);
    /* this thread takes its share too, on its own stack: the caller's, which is the process's
     * main stack or a pool thread's (a run is never started from an OpenMP worker) */
    const int own = omp_get_max_threads();
    pool_main(&sh);
    omp_set_num_threads(own);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(th);
    pthread_mutex_destroy(&sh.lock);
    omp_set_max_active_levels(levels);
}

void srl__pool_lock(srl__pool *p)
{
    pthread_mutex_lock(&p->sh->lock);
}

void srl__pool_unlock(srl__pool *p)
{
    pthread_mutex_unlock(&p->sh->lock);
}
#else
struct srl__pool {
    int unused;
};

void srl__pool_run(size_t n, int nthreads, srl__pool_fn fn, void *ctx)
{
    (void)nthreads;
    srl__pool p = {0};
    for (size_t i = 0; i < n; i++)
        if (fn(ctx, i, &p))
            break;
}

void srl__pool_lock(srl__pool *p)
{
    (void)p;
}

void srl__pool_unlock(srl__pool *p)
{
    (void)p;
}
#endif
