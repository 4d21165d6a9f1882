/* src/linalg/kernels_ref.c: the reference loop of the kernels (include/srlab/kernels.h,
 * docs/design.md §6): one output's explicit sequence of exact operations, one operation at a
 * time (native, exact or slow: src/linalg/kernels_impl.h), in the order the header defines --
 * recursive, blocked, pairwise or Kahan -- with each draw at its fixed index. It is the scalar
 * engine of the matrix product (src/linalg/kernels.c: pairwise, Kahan, sr with pcg64 streams)
 * and the whole of srl_sum, srl_dot, srl_gemv and srl_axpy, defined here.
 * Threads: `omp parallel for schedule(static)` over outputs only; every output's draws are at
 * fixed indices, so the thread count cannot change a bit. No reduction clauses. */
#include "srlab/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "core/threads.h"
#include "linalg/kernels_impl.h"

/* body(ctx, i) for i in [0, n): over the threads with a static schedule when `par` (and
 * src/core/threads.h allows: not inside another region, more than one thread), else on the
 * calling thread without entering a parallel region at all (a region whose `if` clause is false
 * still makes libgomp set up a one-thread team: a measurable cost per call in tight training
 * loops). Iterations are independent outputs, so the split cannot change a result. */
void srl__kern_for(size_t n, bool par, void (*body)(void *ctx, size_t i), void *ctx)
{
    if (par && n > 1 && srl__may_fork()) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            body(ctx, i);
    } else {
        for (size_t i = 0; i < n; i++)
            body(ctx, i);
    }
}

/* Each thread's workspaces (srl__kern_ws): grown on demand and kept until the thread exits (a
 * destructor then frees them), so that matrix products do not take fresh pages from the system
 * on every call: a page's first touch costs microseconds (on a virtual machine of ours, 13 us;
 * 150 of them doubled the time of a 512^3 product). */
enum { KERN_WS_SLOTS = 2 };
static _Thread_local struct {
    void *p;
    size_t cap;
} kern_ws[KERN_WS_SLOTS];
static tss_t kern_ws_key;
static once_flag kern_ws_once = ONCE_FLAG_INIT;
static bool kern_ws_key_ok;

static void kern_ws_release(void *unused)
{
    (void)unused;
    for (int s = 0; s < KERN_WS_SLOTS; s++) {
        free(kern_ws[s].p);
        kern_ws[s].p = NULL;
        kern_ws[s].cap = 0;
    }
}

static void kern_ws_init(void)
{
    kern_ws_key_ok = tss_create(&kern_ws_key, kern_ws_release) == thrd_success;
}

void *srl__kern_ws(int slot, size_t bytes)
{
    if (kern_ws[slot].cap >= bytes)
        return kern_ws[slot].p;
    call_once(&kern_ws_once, kern_ws_init);
    free(kern_ws[slot].p);
    kern_ws[slot].cap = 0;
    bytes = (bytes + 63) / 64 * 64;
    kern_ws[slot].p = aligned_alloc(64, bytes);
    if (!kern_ws[slot].p)
        return NULL;
    kern_ws[slot].cap = bytes;
    if (kern_ws_key_ok)
        tss_set(kern_ws_key, kern_ws); /* non-NULL: the destructor runs at the thread's exit */
    return kern_ws[slot].p;
}

/* One sum in progress: the definition, draw cursors positioned at the next index. */
typedef struct kseq {
    const kcfg *k;
    const kterms *tm;
    const srl_rng *rng;
    srl_rng gp, ga;  /* product draws, term-accumulation draws (used in index order) */
    uint64_t join0;  /* index of join slot 0 (the first accumulation index + n) */
} kseq;

/* t_i without fma: x_i (sum) or round_prod(x_i y_i) with the next product draw. */
static double seq_term(kseq *q, size_t i)
{
    const kcfg *k = q->k;
    const double x = term_at(q->tm->x, i * q->tm->sx, k->isf);
    if (!q->tm->y)
        return x;
    const double y = term_at(q->tm->y, i * q->tm->sy, k->isf);
    uint64_t idx;
    const uint64_t u = cursor_next(&q->gp, k->psto, &idx);
    return k_mul(k, x, y, k->pf, k->pm, u, q->rng, idx);
}

/* With fma (the product enters the accumulation exactly): x_i, y_i and the next accumulation
 * draw (its index in *idx). */
static inline uint64_t seq_fma_operands(kseq *q, size_t i, double *x, double *y, uint64_t *idx)
{
    *x = term_at(q->tm->x, i * q->tm->sx, q->k->isf);
    *y = term_at(q->tm->y, i * q->tm->sy, q->k->isf);
    return cursor_next(&q->ga, q->k->asto, idx);
}

static double seq_start(kseq *q, size_t i)
{
    const kcfg *k = q->k;
    uint64_t idx, u;
    if (k->fma && q->tm->y) {
        double x, y;
        u = seq_fma_operands(q, i, &x, &y, &idx);
        return k_mul(k, x, y, k->af, k->am, u, q->rng, idx);
    }
    const double t = seq_term(q, i);
    u = cursor_next(&q->ga, k->asto, &idx);
    return srl__round_one(t, k->af, k->am, u, q->rng, idx);
}

static double seq_add(kseq *q, double s, size_t i)
{
    const kcfg *k = q->k;
    uint64_t idx, u;
    if (k->fma && q->tm->y) {
        double x, y;
        u = seq_fma_operands(q, i, &x, &y, &idx);
        return k_fma(k, x, y, s, u, q->rng, idx);
    }
    const double t = seq_term(q, i);
    u = cursor_next(&q->ga, k->asto, &idx);
    return k_add(k, s, t, u, q->rng, idx);
}

/* join(a, b) at absolute index idx (random access: pairwise joins are not in index order). */
static double seq_join_at(kseq *q, double a, double b, uint64_t idx)
{
    const uint64_t u = q->k->jsto ? srl_rng_draw_at(q->rng, idx) : 0;
    return k_join(q->k, a, b, u, q->rng, idx);
}

static double seq_pairwise(kseq *q, size_t a, size_t b)
{
    if (b - a == 1)
        return seq_start(q, a);
    size_t h = 1;
    while (2 * h < b - a)
        h *= 2; /* the largest power of two below b - a */
    const double L = seq_pairwise(q, a, a + h); /* leaves in order: the cursors stay in order */
    const double R = seq_pairwise(q, a + h, b);
    return seq_join_at(q, L, R, q->join0 + (a + h) - 1);
}

static double seq_kahan(kseq *q, size_t n)
{
    const kcfg *k = q->k;
    double s = seq_start(q, 0), c = 0.0;
    for (size_t i = 1; i < n; i++) {
        uint64_t idx, u;
        double y;
        if (k->fma && q->tm->y) {
            double xv, yv;
            u = seq_fma_operands(q, i, &xv, &yv, &idx);
            y = k_fma(k, xv, yv, -c, u, q->rng, idx);
        } else {
            const double t = seq_term(q, i);
            u = cursor_next(&q->ga, k->asto, &idx);
            y = k_sub(k, t, c, u, q->rng, idx);
        }
        u = cursor_next(&q->ga, k->asto, &idx);
        const double t = k_add(k, s, y, u, q->rng, idx);
        u = cursor_next(&q->ga, k->asto, &idx);
        const double z = k_sub(k, t, s, u, q->rng, idx);
        u = cursor_next(&q->ga, k->asto, &idx);
        c = k_sub(k, z, y, u, q->rng, idx);
        s = t;
    }
    return s;
}

/* Is the whole sum a plain binary64 loop? (binary64 inputs, binary64 rn products and sums.) */
static bool native64(const kcfg *k, bool products)
{
    return !k->isf && is_binary64(k->af) && k->am.mode == SRL_RN && !k->kahan &&
           k->order == SRL_ORDER_RECURSIVE &&
           (!products || k->fma || (is_binary64(k->pf) && k->pm.mode == SRL_RN));
}

/* One sum of n terms whose draws start at `base` (products first when they have draws). */
double srl__kseq_eval(const kcfg *k, const kterms *tm, size_t n, const srl_rng *rng,
                      uint64_t base)
{
    if (n == 0)
        return 0.0;
    if (native64(k, tm->y != NULL)) {
        const double *x = (const double *)tm->x, *y = (const double *)tm->y;
        double s;
        if (!y) {
            s = x[0];
            for (size_t i = 1; i < n; i++)
                s = s + x[i * tm->sx];
        } else if (k->fma) {
            s = x[0] * y[0];
            for (size_t i = 1; i < n; i++)
                s = fma(x[i * tm->sx], y[i * tm->sy], s);
        } else {
            s = x[0] * y[0];
            for (size_t i = 1; i < n; i++)
                s = s + x[i * tm->sx] * y[i * tm->sy];
        }
        return s;
    }
    kseq q;
    memset(&q, 0, sizeof q);
    q.k = k;
    q.tm = tm;
    q.rng = rng;
    const uint64_t P = (k->psto && tm->y) ? (uint64_t)n : 0;
    if (k->psto && tm->y) {
        q.gp = *rng;
        srl_rng_seek(&q.gp, base);
    }
    if (k->asto) {
        q.ga = *rng;
        srl_rng_seek(&q.ga, base + P);
    }
    q.join0 = base + P + n;
    if (k->kahan)
        return seq_kahan(&q, n);
    if (k->order == SRL_ORDER_PAIRWISE)
        return seq_pairwise(&q, 0, n);
    /* recursive, or blocked: S_b summed recursively, then joined in block order */
    const size_t K = k->order == SRL_ORDER_BLOCKED ? k->K : n;
    srl_rng gj;
    memset(&gj, 0, sizeof gj);
    if (k->jsto && K < n) {
        gj = *rng;
        srl_rng_seek(&gj, q.join0);
    }
    double tot = 0.0, blk = 0.0;
    for (size_t i = 0; i < n; i++) {
        blk = (i % K == 0) ? seq_start(&q, i) : seq_add(&q, blk, i);
        if ((i + 1) % K == 0 || i + 1 == n) {
            if (i < K) {
                tot = blk;
            } else {
                uint64_t idx;
                const uint64_t u = cursor_next(&gj, k->jsto, &idx);
                tot = k_join(k, tot, blk, u, rng, idx);
            }
        }
    }
    return tot;
}

/* Row i of y = A x. */
typedef struct gemv_ctx {
    double *y;
    const double *A, *x;
    size_t n;
    const kcfg *kc;
    const srl_rng *rng;
    uint64_t c0, D;
} gemv_ctx;

static void gemv_row(void *vctx, size_t i)
{
    const gemv_ctx *c = vctx;
    kterms tm;
    tm.x = c->A + i * c->n;
    tm.sx = 1;
    tm.y = c->x;
    tm.sy = 1;
    c->y[i] = srl__kseq_eval(c->kc, &tm, c->n, c->rng, c->c0 + (uint64_t)i * c->D);
}

int srl_gemv(double *y, const double *A, const double *x, size_t m, size_t n,
             const srl_accum *c, srl_rng *rng)
{
    if (!y || (!A && m && n) || (!x && n))
        return SRL_EINVAL;
    int st = srl__accum_check(c, true, rng, false);
    if (st != SRL_OK)
        return st;
    const uint64_t D = srl_dot_draws(n, c), total = srl_gemv_draws(m, n, c);
    if (total == UINT64_MAX && D != 0)
        return SRL_ERANGE;
    kcfg kc;
    kcfg_init(&kc, c, true, false);
    const uint64_t c0 = rng ? rng->counter : 0;
    gemv_ctx gc = {y, A, x, n, &kc, rng, c0, D};
    srl__kern_for(m, (double)m * (double)n >= (double)KERN_OMP_MIN, gemv_row, &gc);
    kern_advance(rng, total);
    return SRL_OK;
}

/* One sum of x (y == NULL) or dot product of x and y, n terms, draws from rng's counter on. */
static int one_sum(double *s, const double *x, const double *y, size_t n, const srl_accum *c,
                   srl_rng *rng)
{
    const bool products = y != NULL;
    int st = srl__accum_check(c, products, rng, false);
    if (st != SRL_OK)
        return st;
    kcfg kc;
    kcfg_init(&kc, c, products, false);
    const kterms tm = {x, y, 1, 1};
    *s = srl__kseq_eval(&kc, &tm, n, rng, rng ? rng->counter : 0);
    kern_advance(rng, products ? srl_dot_draws(n, c) : srl_sum_draws(n, c));
    return SRL_OK;
}

int srl_sum(double *s, const double *x, size_t n, const srl_accum *c, srl_rng *rng)
{
    if (!s || (!x && n))
        return SRL_EINVAL;
    return one_sum(s, x, NULL, n, c, rng);
}

int srl_dot(double *s, const double *x, const double *y, size_t n, const srl_accum *c,
            srl_rng *rng)
{
    if (!s || ((!x || !y) && n))
        return SRL_EINVAL;
    return one_sum(s, x, y, n, c, rng);
}

/* Elements per block of srl_axpy: each block positions its own copy of the stream. */
#define AXPY_BLOCK ((size_t)4096)

/* One block [lo, lo + AXPY_BLOCK) of srl_axpy, with its own copy of the stream. */
typedef struct axpy_ctx {
    double *y;
    const double *x;
    double alpha;
    size_t n;
    const kcfg *kc;
    const srl_rng *rng;
    uint64_t c0;
    bool sto;
} axpy_ctx;

static void axpy_block(void *vctx, size_t b)
{
    const axpy_ctx *c = vctx;
    const kcfg *kc = c->kc;
    const size_t lo = b * AXPY_BLOCK, hi = lo + AXPY_BLOCK < c->n ? lo + AXPY_BLOCK : c->n;
    srl_rng g;
    memset(&g, 0, sizeof g);
    if (c->sto) {
        g = *c->rng;
        srl_rng_seek(&g, c->c0 + 2 * (uint64_t)lo);
    }
    for (size_t i = lo; i < hi; i++) {
        uint64_t ip, ia;
        const uint64_t up = cursor_next(&g, c->sto, &ip), ua = cursor_next(&g, c->sto, &ia);
        if (kc->fma) {
            c->y[i] = k_fma(kc, c->alpha, c->x[i], c->y[i], ua, c->rng, ia);
        } else {
            const double t = k_mul(kc, c->alpha, c->x[i], kc->pf, kc->pm, up, c->rng, ip);
            c->y[i] = k_add(kc, c->y[i], t, ua, c->rng, ia);
        }
    }
}

int srl_axpy(double *y, double alpha, const double *x, size_t n, const srl_accum *c,
             srl_rng *rng)
{
    if ((!y || !x) && n)
        return SRL_EINVAL;
    int st = srl__accum_check(c, true, rng, false);
    if (st != SRL_OK)
        return st;
    kcfg kc;
    kcfg_init(&kc, c, true, false);
    const uint64_t total = srl_axpy_draws(n, c);
    axpy_ctx ac = {y, x, alpha, n, &kc, rng, rng ? rng->counter : 0, total != 0};
    srl__kern_for((n + AXPY_BLOCK - 1) / AXPY_BLOCK, n >= KERN_OMP_MIN, axpy_block, &ac);
    kern_advance(rng, total);
    return SRL_OK;
}
