/* src/problems/model_ops.h: the operations the MLP's and the GPT's passes share, in one
 * instance's arithmetic (private). Included by src/problems/model_instantiate.h before each
 * instance of a model's template, with REAL, TPL(name) and PASS_MODE set; no include guard.
 *
 *   R_EXP R_LOG R_TANH R_SQRT   functions of REAL: the C library's (deterministic, not correctly
 *                               rounded; sqrt is), but for binary32 tanh, srl__tanh32
 *                               (src/problems/tanh32.h: IEEE operations only, the same bits on
 *                               every machine, faithful)
 *   mm_nn mm_nt mm_tn           C (m,n) = A (m,k) @ B (k,n), A @ B^T with B (n,k), A^T @ B with
 *                               A (k,m): _emu a kernel call (srl_gemm_f, _nt_f, _tn_f) with the
 *                               accumulation config and draws from rng; otherwise plain loops
 *                               summing each output in the order l = 0, 1, ..., k-1, one rounding
 *                               per product and per addition (the kernels' recursive order, so
 *                               that _emu with the fp32 strategy equals _plain bit for bit).
 *                               mm_nt's plain loop transposes B into scratch (k*n elements).
 *   mm_draws                    the draws one product takes from rng (0 outside _emu)
 *   mm_lin                      a linear layer's product (Fprop, Dgrad or Wgrad): block-scaled
 *                               where the strategy says so, else mm_nn, mm_nt or mm_tn
 *   mm_lin_rounded              mm_lin, its output then rounded into a slot (round_slot), by
 *                               the product's own threads where its engine can, and there also
 *                               an elementwise stage on the rounded output (a stage: an
 *                               operation writing another array, rounded in turn)
 *   lin_draws                   the draws mm_lin takes from rng
 *   round_slot, round_draws     x rounded in place into a slot (the strategy's act or grad
 *                               slot, srl__round_slot) and its draws; no-ops outside _emu
 *   round_part                  the part [lo, lo + len) of round_slot(x, n, ...): the same
 *                               values and draws (element i takes draw rng->counter + i), rng
 *                               unchanged; for a thread rounding the share of x it has just
 *                               written, in the loop's own parallel region (no region and no
 *                               pass over x of its own); the caller then advances rng by
 *                               round_draws(n, slot)
 *   gelu, gelu_grad             GELU in its tanh form and its derivative (gelu_th and
 *   gelu_th, gelu_grad_th       gelu_grad_th: the same with the tanh term handed over)
 *   xent_row                    one row of softmax cross-entropy and its gradient */

#include "core/isa.h"     /* SRL__PLAIN_CLONES */
#include "core/threads.h" /* srl__workers_ok */
#include "linalg/gemm_ep.h"
#include "problems/tanh32.h"

#undef R_EXP
#undef R_LOG
#undef R_TANH
#undef R_SQRT
#if PASS_MODE == SRL__PASS_F64
#define R_EXP exp
#define R_LOG log
#define R_TANH tanh
#define R_SQRT sqrt
#else
#define R_EXP expf
#define R_LOG logf
#define R_TANH srl__tanh32 /* src/problems/tanh32.h: deterministic, vectorisable */
#define R_SQRT sqrtf
#endif


/* ---- matrix products ---- */

#if PASS_MODE == SRL__PASS_EMU
static int TPL(mm_nn)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n, size_t k,
                      const srl_accum *accum, srl_rng *rng, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_f(C, A, B, m, n, k, accum, rng);
}
static int TPL(mm_nt)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n, size_t k,
                      const srl_accum *accum, srl_rng *rng, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_nt_f(C, A, B, m, n, k, accum, rng);
}
static int TPL(mm_tn)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n, size_t k,
                      const srl_accum *accum, srl_rng *rng, REAL *scratch)
{
    (void)scratch;
    return srl_gemm_tn_f(C, A, B, m, n, k, accum, rng);
}
static inline uint64_t TPL(mm_draws)(size_t m, size_t n, size_t k, const srl_accum *accum)
{
    return srl_gemm_draws(m, n, k, accum);
}
static int TPL(round_slot)(REAL *x, size_t n, const srl_slot *slot, srl_rng *rng)
{
    return srl__round_slot(x, n, slot, rng);
}
static inline uint64_t TPL(round_draws)(size_t n, const srl_slot *slot)
{
    return srl_rounding_is_stochastic(slot->mode) ? n : 0;
}
static inline int TPL(round_part)(REAL *x, size_t lo, size_t len, const srl_slot *slot,
                                  const srl_rng *rng)
{
    if (!rng)
        return srl__round_slot(x + lo, len, slot, NULL);
    srl_rng r = *rng;
    srl_rng_seek(&r, rng->counter + lo);
    return srl__round_slot(x + lo, len, slot, &r);
}
#else
/* Row i of C, columns [0, n) of a panel: c = a_i0 B[0,:], then c += a_il B[l,:] for l = 1 ..
 * k-1, B's rows ldb apart (the i-l-j loop keeps every output's order l = 0, 1, ...; the
 * compiler vectorises over j). Cloned for x86-64-v3 and v4 and picked at run time, as the
 * kernels' engines are: -ffp-contract=off and the fixed order make every clone compute the same
 * bits, only faster. */
SRL__PLAIN_CLONES
static void TPL(row_nn)(REAL *restrict c, const REAL *a, size_t astep, const REAL *restrict B,
                        size_t ldb, size_t n, size_t k)
{
    const REAL a0 = a[0];
    for (size_t j = 0; j < n; j++)
        c[j] = a0 * B[j];
    for (size_t l = 1; l < k; l++) {
        const REAL al = a[l * astep];
        const REAL *restrict b = B + l * ldb;
        for (size_t j = 0; j < n; j++)
            c[j] = c[j] + al * b[j];
    }
}
/* C (m,n), row i = sum_l a_il B[l,:] with a_il = A[i rowstep + l astep]: rowstep k and astep 1
 * for A (m,k) row-major, rowstep 1 and astep m for A^T with A (k,m). A wide C (the head's
 * logits, n = the vocabulary) is taken in panels of MM_PANEL columns, each over every row: the
 * panel of B (k x MM_PANEL) then stays in the cache across the rows, where whole rows of B
 * would stream from memory once per row of C. Every output keeps its order l = 0, 1, ...: the
 * same bits either way. */
#ifndef MM_PANEL
#define MM_PANEL 64
#endif
static int TPL(mm_rows)(REAL *C, const REAL *A, size_t astep, size_t rowstep, const REAL *B,
                        size_t m, size_t n, size_t k)
{
    if (k == 0) {
        memset(C, 0, m * n * sizeof *C);
        return SRL_OK;
    }
    if (n <= 16 * MM_PANEL) {
#pragma omp parallel for schedule(static) \
    if (m * n * k >= 4 * srl__models_omp_min && m > 1 && srl__workers_ok())
        for (size_t i = 0; i < m; i++)
            TPL(row_nn)(C + i * n, A + i * rowstep, astep, B, n, n, k);
        return SRL_OK;
    }
    const size_t np = (n + MM_PANEL - 1) / MM_PANEL;
#pragma omp parallel for schedule(static) \
    if (m * n * k >= 4 * srl__models_omp_min && srl__workers_ok())
    for (size_t p = 0; p < np; p++) {
        const size_t j0 = p * MM_PANEL, w = n - j0 < MM_PANEL ? n - j0 : MM_PANEL;
        for (size_t i = 0; i < m; i++)
            TPL(row_nn)(C + i * n + j0, A + i * rowstep, astep, B + j0, n, w, k);
    }
    return SRL_OK;
}
static int TPL(mm_nn)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n, size_t k,
                      const srl_accum *accum, srl_rng *rng, REAL *scratch)
{
    (void)accum, (void)rng, (void)scratch;
    return TPL(mm_rows)(C, A, 1, k, B, m, n, k);
}
static int TPL(mm_tn)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n, size_t k,
                      const srl_accum *accum, srl_rng *rng, REAL *scratch)
{
    (void)accum, (void)rng, (void)scratch;
    return TPL(mm_rows)(C, A, m, 1, B, m, n, k);
}
/* B (n,k) transposed into scratch (k,n), then the i-l-j product. */
static int TPL(mm_nt)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n, size_t k,
                      const srl_accum *accum, srl_rng *rng, REAL *scratch)
{
    (void)accum, (void)rng;
    for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l < k; l++)
            scratch[l * n + j] = B[j * k + l];
    return TPL(mm_rows)(C, A, 1, k, scratch, m, n, k);
}
static inline uint64_t TPL(mm_draws)(size_t m, size_t n, size_t k, const srl_accum *accum)
{
    (void)m, (void)n, (void)k, (void)accum;
    return 0;
}
static int TPL(round_slot)(REAL *x, size_t n, const srl_slot *slot, srl_rng *rng)
{
    (void)x, (void)n, (void)slot, (void)rng;
    return SRL_OK;
}
static inline uint64_t TPL(round_draws)(size_t n, const srl_slot *slot)
{
    (void)n, (void)slot;
    return 0;
}
static inline int TPL(round_part)(REAL *x, size_t lo, size_t len, const srl_slot *slot,
                                  const srl_rng *rng)
{
    (void)x, (void)lo, (void)len, (void)slot, (void)rng;
    return SRL_OK;
}
#endif

/* A linear layer's product, gemm `kind` of SRL_STRATEGY_* (Fprop: C = A B, mm_nn; Dgrad: A B^T,
 * mm_nt; Wgrad: A^T B, mm_tn; the reduction dimension kk the one the kernels sum over): a
 * block-scaled GEMM (srlab/mxgemm.h) where the strategy turns one on for that gemm (mx[kind]
 * set; _emu only), otherwise the kernels with accum. The MLP's layers and the GPT's blocks. */
static inline int TPL(mm_lin)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n,
                              size_t kk, int kind, const srl_mxgemm *const *mx,
                              const srl_accum *accum, srl_rng *rng, REAL *scratch)
{
#if PASS_MODE == SRL__PASS_EMU
    static const srl_mxgemm_layout lay[SRL_STRATEGY_GEMMS] = {SRL_MXGEMM_NN, SRL_MXGEMM_NT,
                                                              SRL_MXGEMM_TN};
    if (mx[kind])
        return srl_mxgemm_f(C, A, B, m, n, kk, lay[kind], mx[kind], rng);
#else
    (void)mx;
#endif
    switch (kind) {
    case SRL_STRATEGY_FPROP: return TPL(mm_nn)(C, A, B, m, n, kk, accum, rng, scratch);
    case SRL_STRATEGY_DGRAD: return TPL(mm_nt)(C, A, B, m, n, kk, accum, rng, scratch);
    default: return TPL(mm_tn)(C, A, B, m, n, kk, accum, rng, scratch);
    }
}

/* The draws mm_lin takes (its rng advances by as many). */
static inline uint64_t TPL(lin_draws)(size_t m, size_t n, size_t kk, int kind,
                                      const srl_mxgemm *const *mx, const srl_accum *accum)
{
#if PASS_MODE == SRL__PASS_EMU
    if (mx[kind])
        return srl_mxgemm_draws(m, n, kk, mx[kind]);
#else
    (void)mx, (void)kind;
#endif
    return TPL(mm_draws)(m, n, kk, accum);
}

/* An elementwise stage on a product's rounded output: fn(ctx, e0, len) writes the elements
 * [e0, e0 + len) of out from those of the output, and out is rounded into the same slot with
 * the draws that begin `skip` draws after the output's own rounding's (the draws of whatever the
 * caller does in between). */
typedef struct TPL(stage) {
    REAL *out;
    void (*fn)(const void *ctx, size_t e0, size_t len);
    const void *ctx;
    uint64_t skip;
} TPL(stage);

/* mm_lin, then C (m x n) rounded into slot as round_slot(C, m n, slot, rng) after it rounds it
 * (the same values and draws: element e at the draw rng's counter + the product's draws + e),
 * by the product's threads as they finish their rows where its engine runs an epilogue
 * (src/linalg/gemm_ep.h), else after it: no region and no pass over C of its own. With a stage
 * `then` (NULL: none), *then_done says whether the epilogue also ran it, its draws at rng's
 * counter (on return) + then->skip + e for element e; rng does not advance past them (the caller
 * does, or runs the stage itself when the epilogue did not). */
#if PASS_MODE == SRL__PASS_EMU
typedef struct TPL(ep_ctx) {
    REAL *C;
    const srl_slot *slot;
    srl_rng r, r2; /* at the first draw of the rounding, of the stage's */
    const srl_rng *rp, *rp2; /* &r, &r2, or NULL without draws */
    const TPL(stage) *then;
} TPL(ep_ctx);

static int TPL(ep_round)(void *vctx, size_t e0, size_t len)
{
    const TPL(ep_ctx) *c = vctx;
    const int st = TPL(round_part)(c->C, e0, len, c->slot, c->rp);
    if (st != SRL_OK || !c->then)
        return st;
    c->then->fn(c->then->ctx, e0, len);
    return TPL(round_part)(c->then->out, e0, len, c->slot, c->rp2);
}
#endif

static inline int TPL(mm_lin_rounded)(REAL *C, const REAL *A, const REAL *B, size_t m, size_t n,
                                      size_t kk, int kind, const srl_mxgemm *const *mx,
                                      const srl_accum *accum, srl_rng *rng, REAL *scratch,
                                      const srl_slot *slot, const TPL(stage) *then,
                                      bool *then_done)
{
    if (then_done)
        *then_done = false;
#if PASS_MODE == SRL__PASS_EMU
    if (!mx[kind]) {
        TPL(ep_ctx) c = {C, slot, {0}, {0}, NULL, NULL, then};
        const uint64_t d = TPL(round_draws)(m * n, slot);
        if (rng) {
            c.r = *rng;
            srl_rng_seek(&c.r, rng->counter + TPL(mm_draws)(m, n, kk, accum));
            c.rp = &c.r;
            c.r2 = c.r;
            if (then)
                srl_rng_seek(&c.r2, c.r.counter + d + then->skip);
            c.rp2 = &c.r2;
        }
        srl__gemm_ep ep = {TPL(ep_round), &c, false, SRL_OK};
        const int layout = kind == SRL_STRATEGY_FPROP ? 0 : kind == SRL_STRATEGY_DGRAD ? 1 : 2;
        const int st = srl__gemm_f_ep(C, A, B, m, n, kk, layout, accum, rng, &ep);
        if (st != SRL_OK || (ep.done && ep.status != SRL_OK))
            return st != SRL_OK ? st : ep.status;
        if (ep.done) {
            if (rng && d)
                srl_rng_seek(rng, rng->counter + d);
            if (then_done)
                *then_done = then != NULL;
            return SRL_OK;
        }
        return TPL(round_slot)(C, m * n, slot, rng);
    }
#endif
    (void)then;
    const int st = TPL(mm_lin)(C, A, B, m, n, kk, kind, mx, accum, rng, scratch);
    return st != SRL_OK ? st : TPL(round_slot)(C, m * n, slot, rng);
}

/* ---- GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) ---- */

/* gelu(x), with *th = the tanh term (gelu_grad_th reuses it: the same expression, the same
 * bits as gelu_grad recomputing it). */
static inline REAL TPL(gelu_th)(REAL x, REAL *th)
{
    const REAL s2pi = (REAL)0.79788456080286535588, c = (REAL)0.044715, half = (REAL)0.5;
    const REAL u = s2pi * (x + c * ((x * x) * x));
    *th = R_TANH(u);
    return (half * x) * ((REAL)1 + *th);
}

static inline REAL TPL(gelu)(REAL x)
{
    REAL th;
    return TPL(gelu_th)(x, &th);
}

static inline REAL TPL(gelu_grad_th)(REAL x, REAL th)
{
    const REAL s2pi = (REAL)0.79788456080286535588, c3 = (REAL)(3 * 0.044715), half = (REAL)0.5;
    const REAL du = s2pi * ((REAL)1 + c3 * (x * x));
    return half * ((REAL)1 + th) + ((half * x) * ((REAL)1 - th * th)) * du;
}

static inline REAL TPL(gelu_grad)(REAL x)
{
    const REAL s2pi = (REAL)0.79788456080286535588, c = (REAL)0.044715;
    return TPL(gelu_grad_th)(x, R_TANH(s2pi * (x + c * ((x * x) * x))));
}

/* ---- softmax cross-entropy of one row ---- */

/* The loss log sum_v exp(z_v - max) - (z_y - max) of the logits z[0 .. V) with target y, in the
 * arithmetic REAL (returned as binary64); dz (NULL: none) = (softmax(z) - onehot(y)) * scale;
 * *argmax (NULL: none) = the first v with the largest z_v. */
static double TPL(xent_row)(const REAL *z, size_t V, size_t y, REAL scale, REAL *dz,
                            size_t *argmax)
{
    REAL mx = z[0];
    size_t arg = 0;
    for (size_t v = 1; v < V; v++)
        if (z[v] > mx)
            mx = z[v], arg = v;
    REAL s = R_EXP(z[0] - mx);
    for (size_t v = 1; v < V; v++)
        s = s + R_EXP(z[v] - mx);
    if (dz)
        for (size_t v = 0; v < V; v++)
            dz[v] = (R_EXP(z[v] - mx) / s - (v == y ? (REAL)1 : (REAL)0)) * scale;
    if (argmax)
        *argmax = arg;
    return (double)(R_LOG(s) - (z[y] - mx));
}
