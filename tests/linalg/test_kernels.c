/* tests/linalg/test_kernels.c: every kernel against its definition (include/srlab/kernels.h),
 * suite `unit`.
 *
 * Contract under test: srl_sum, srl_dot, srl_axpy, srl_gemv, srl_gemm, srl_gemm_f,
 * srl_gemm_nt_f and srl_gemm_tn_f compute, bit for bit, the explicit sequence of exact
 * operations the header defines, with its draw indices. The reference below is that sequence
 * written out again from the header's text, one srl_op_apply_draw call per rounding, with the
 * draw of index I taken as srl_rng_draw_at(rng, I): products MUL into prod_fmt; start(i) is MUL
 * by 1 (or, with fma, the product) into acc_fmt; add is ADD (or FMA); join is ADD; Kahan's four
 * operations are SUB, ADD, SUB, SUB. Also: the counter advances by exactly srl_*_draws, which
 * the test recomputes from the header's formulas; deterministic configs leave the stream alone;
 * the binary64 rn recursive config is a plain binary64 loop and fp32 rn on bf16 inputs a plain
 * binary32 loop; invalid arguments are SRL_EINVAL and change nothing; srl_accum_parse and
 * srl_accum_name round-trip and reject malformed or contradictory specs.
 *
 * Inputs: bf16 values (exact products in binary32), binary32 and binary64 values, and a "hard"
 * mix (zeros of both signs, exact cancellations, magnitudes 2^-60 .. 2^60, values near the
 * accumulator's overflow and subnormal ranges, and in small cases inf and NaN), so that every
 * path of src/linalg/kernels.c (native, bit logic, the slow fallback) is taken. Sizes 0, 1, 2, 3, 7,
 * 64, 100, 257 (gemm: shapes mixing them, so that vector tiles are full, partial and single
 * lanes; m = 4 and 9 for the native engine's blocks of four rows, full and short). Both stream
 * kinds. The matrix products run at every instruction-set level the CPU has
 * (src/linalg/kernels_priv.h). Everything is an equality; the seed is printed with failures. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/kernels_priv.h" /* srl__kernels_isa: run every instruction set's engines */
#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/ops.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "../testutil.h"

#define SEED UINT64_C(0x6b65726e656c73)

static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 100, 257};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Configurations: formats and modes, fma, every order, Kahan. */
static const char *const configs[] = {
    "prod=fp64:rn,acc=fp64:rn",
    "prod=fp32:rn,acc=fp32:rn",
    "prod=bf16:rn,acc=fp32:rn",
    "prod=fp32:rn,acc=bf16:sr",
    "prod=bf16:rn,acc=bf16:sr",
    "prod=bf16:sr,acc=bf16:sr",
    "prod=bf16:rn,acc=bf16:sr-eq",
    "prod=fp16:rz,acc=fp16:sr:r=8",
    "prod=fp32:rn,acc=bf16:sr:r=40",
    "prod=tf32:ru,acc=fp16:rd",
    "prod=fp32:rn,acc=fp32:rd",
    "prod=fp32:rn,acc=fp32:rz",
    "prod=bf16:rn,acc=fp32:ru",
    "prod=fp64:sr,acc=fp32:sr",
    "prod=fp64:rn,acc=bf16:rn",
    "prod=e4m3:rn,acc=e5m2:ro",
    "prod=fp16:rna,acc=(p=10,emax=15,subnormals=off):rz",
    "prod=bf16:rn,acc=e4m3:sr",
    "prod=fp32:rn,acc=fp32:rn,fma=on",
    "prod=bf16:sr,acc=bf16:sr,fma=on",
    "prod=fp32:rn,acc=fp16:rn,fma=on",
    "prod=fp32:rn,acc=fp32:rn,order=blocked:16",
    "prod=fp32:rn,acc=fp16:rn,order=blocked:4",
    "prod=fp32:sr,acc=bf16:sr,order=blocked:7",
    "prod=bf16:rn,acc=bf16:sr,order=blocked:1",
    "prod=bf16:rn,acc=fp32:rn,fma=on,order=blocked:8",
    "prod=fp32:rn,acc=bf16:rn,order=pairwise",
    "prod=bf16:sr,acc=bf16:sr,order=pairwise",
    "prod=fp32:rn,acc=bf16:rn,kahan=on",
    "prod=bf16:sr,acc=bf16:sr,kahan=on",
    "prod=fp32:rn,acc=bf16:sr,fma=on,kahan=on",
    "prod=fp64:rn,acc=fp64:rn,fma=on",
    "prod=fp64:rn,acc=fp64:sr",
    "prod=fp32:rn,acc=fp64:rn",
    "prod=fp64:rn,acc=fp64:rn,order=pairwise",
    "prod=bf16:rn,acc=bf16:rd",
    "prod=bf16:rz,acc=bf16:sr:r=7",
    "prod=bf16:rn,acc=bf16:sr:r=40",
    "prod=fp32:rn,acc=fp16:sr:r=64",
    "prod=bf16:rn,acc=fp32:rn,order=blocked:5",
    "prod=bf16:sr,acc=bf16:sr,order=blocked:3",
    "prod=fp32:rn,acc=fp16:sr,order=blocked:4",
    "prod=bf16:rn,acc=fp16:sr,order=blocked:4",
    "prod=fp32:rn,acc=bf16:rz,order=blocked:8,join=fp32:rn",
    "prod=bf16:rn,acc=fp16:sr,order=blocked:4,join=fp32:rn",
    "prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:3,join=fp32:rn",
    "prod=fp32:rn,acc=bf16:rn,order=pairwise,join=fp32:sr",
    "prod=bf16:rn,acc=fp32:rn,order=blocked:5,join=bf16:sr",
    "prod=fp32:rn,acc=bf16:sr,order=blocked:6,join=bf16:sr",
};
#define NCONFIGS (sizeof configs / sizeof configs[0])

static srl_accum cfgs[NCONFIGS];

/* ---- the reference: the header's definition, one srl_op_apply_draw per rounding ---- */

static bool sto(srl_rounding m)
{
    return srl_rounding_is_stochastic(m);
}

static double OP(srl_op op, double a, double b, double c3, const srl_format *f, srl_rounding m,
                 const srl_rng *rng, uint64_t idx)
{
    const uint64_t u = sto(m) ? srl_rng_draw_at(rng, idx) : 0;
    return srl_op_apply_draw(op, a, b, c3, f, m, u, rng, idx);
}

/* Accumulation roundings of an n-term sum, from the header's "Draws" table. */
static uint64_t ref_acc_count(size_t n, const srl_accum *c)
{
    if (n == 0 || !(sto(c->acc_mode) || (c->join && sto(c->join_mode))))
        return 0;
    if (c->kahan)
        return 4 * (uint64_t)n - 3;
    if (c->order == SRL_ORDER_PAIRWISE)
        return 2 * (uint64_t)n - 1;
    if (c->order == SRL_ORDER_BLOCKED)
        return n + (n + c->block - 1) / c->block - 1;
    return n;
}

static uint64_t ref_dot_count(size_t n, const srl_accum *c)
{
    return ((!c->fma && sto(c->prod_mode)) ? n : 0) + ref_acc_count(n, c);
}

typedef struct ref_sum {
    const srl_accum *c;
    const srl_rng *rng;
    const double *x, *y; /* y NULL: the terms are x (srl_sum) */
    size_t sx, sy;
    double *t;           /* t_i (no fma) */
    size_t n;
    uint64_t A0;         /* first accumulation index */
    bool fma;
} ref_sum;

static double X(const ref_sum *r, size_t i)
{
    return r->x[i * r->sx];
}

static double Y(const ref_sum *r, size_t i)
{
    return r->y[i * r->sy];
}

static double ref_start(const ref_sum *r, size_t i, uint64_t idx)
{
    const srl_accum *c = r->c;
    if (r->fma)
        return OP(SRL_MUL, X(r, i), Y(r, i), 0, &c->acc_fmt, c->acc_mode, r->rng, idx);
    return OP(SRL_MUL, r->t[i], 1.0, 0, &c->acc_fmt, c->acc_mode, r->rng, idx);
}

static double ref_add(const ref_sum *r, double s, size_t i, uint64_t idx)
{
    const srl_accum *c = r->c;
    if (r->fma)
        return OP(SRL_FMA, X(r, i), Y(r, i), s, &c->acc_fmt, c->acc_mode, r->rng, idx);
    return OP(SRL_ADD, s, r->t[i], 0, &c->acc_fmt, c->acc_mode, r->rng, idx);
}

static double ref_join(const ref_sum *r, double a, double b, uint64_t idx)
{
    const srl_accum *c = r->c;
    return OP(SRL_ADD, a, b, 0, c->join ? &c->join_fmt : &c->acc_fmt,
              c->join ? c->join_mode : c->acc_mode, r->rng, idx);
}

static double ref_pairwise(const ref_sum *r, size_t a, size_t b)
{
    const size_t len = b - a;
    if (len == 1)
        return ref_start(r, a, r->A0 + a);
    size_t h = 1; /* the largest power of two strictly below len */
    while (h < len)
        h <<= 1;
    h >>= 1;
    const size_t m = a + h;
    const double L = ref_pairwise(r, a, m), R = ref_pairwise(r, m, b);
    return ref_join(r, L, R, r->A0 + r->n + m - 1);
}

/* One sum (or dot product) whose draws begin at base. */
static double ref_eval(const srl_accum *c, const srl_rng *rng, const double *x, size_t sx,
                       const double *y, size_t sy, size_t n, uint64_t base)
{
    if (n == 0)
        return 0.0;
    ref_sum r = {c, rng, x, y, sx, sy, NULL, n, base, y != NULL && c->fma};
    const bool pdraws = y && !c->fma && sto(c->prod_mode);
    r.A0 = base + (pdraws ? n : 0);
    r.t = malloc(n * sizeof *r.t);
    for (size_t i = 0; i < n; i++)
        r.t[i] = !y ? X(&r, i)
                    : c->fma ? 0.0
                             : OP(SRL_MUL, X(&r, i), Y(&r, i), 0, &c->prod_fmt, c->prod_mode,
                                  rng, base + i);
    double s;
    if (c->kahan) {
        s = ref_start(&r, 0, r.A0);
        double comp = 0.0;
        for (size_t i = 1; i < n; i++) {
            const uint64_t j = r.A0 + 4 * i - 3;
            const double yy = r.fma ? OP(SRL_FMA, X(&r, i), Y(&r, i), -comp, &c->acc_fmt,
                                         c->acc_mode, rng, j)
                                    : OP(SRL_SUB, r.t[i], comp, 0, &c->acc_fmt, c->acc_mode,
                                         rng, j);
            const double t = OP(SRL_ADD, s, yy, 0, &c->acc_fmt, c->acc_mode, rng, j + 1);
            const double z = OP(SRL_SUB, t, s, 0, &c->acc_fmt, c->acc_mode, rng, j + 2);
            comp = OP(SRL_SUB, z, yy, 0, &c->acc_fmt, c->acc_mode, rng, j + 3);
            s = t;
        }
    } else if (c->order == SRL_ORDER_PAIRWISE) {
        s = ref_pairwise(&r, 0, n);
    } else {
        const size_t K = c->order == SRL_ORDER_BLOCKED ? c->block : n;
        s = 0;
        for (size_t b = 0; b * K < n; b++) {
            const size_t lo = b * K, hi = lo + K < n ? lo + K : n;
            double S = ref_start(&r, lo, r.A0 + lo);
            for (size_t i = lo + 1; i < hi; i++)
                S = ref_add(&r, S, i, r.A0 + i);
            s = b == 0 ? S : ref_join(&r, s, S, r.A0 + n + b - 1);
        }
    }
    free(r.t);
    return s;
}

/* ---- inputs ---- */

enum { IN_BF16 = 0, IN_F32, IN_F64, IN_HARD, IN_BF16W, IN_TINY, IN_SPECIAL, IN_NCLASS };
static const char *const class_names[IN_NCLASS] = {"bf16", "fp32", "fp64", "hard", "bf16-wide",
                                                   "tiny", "special"};

static double gauss(srl_rng *g)
{
    return srl_rng_normal(g);
}

/* n values of a class; `bin32`: binary32 numbers (for the float kernels). */
static void gen(double *v, size_t n, int cls, bool bin32, uint64_t seed)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, seed, 77);
    const srl_format *bf16 = srl_format_find("bf16");
    for (size_t i = 0; i < n; i++) {
        double x = gauss(&g);
        const uint64_t u = srl_rng_next(&g);
        switch (cls) {
        case IN_BF16: x = srl_round(x, bf16, SRL_ROUND_RN, NULL); break;
        case IN_F32: x = (float)x; break;
        case IN_F64: break;
        case IN_TINY: /* bf16 values near 2^-10: sums in fp16's subnormal range */
            x = srl_round(ldexp(x, -10), bf16, SRL_ROUND_RN, NULL);
            break;
        case IN_BF16W: { /* bf16 values 2^-60 .. 2^60: products exact in binary32, sums that
                            overflow or underflow narrow accumulators; zeros, cancellations */
            const int kind = (int)(u % 8);
            x = srl_round(ldexp(x, (int)((u >> 8) % 121) - 60), bf16, SRL_ROUND_RN, NULL);
            if (kind == 0)
                x = (u >> 20) & 1 ? 0.0 : -0.0;
            else if (kind == 1 && i > 0)
                x = -v[i - 1];
            break;
        }
        default: {
            const int kind = (int)(u % 16);
            if (kind == 0)
                x = (u >> 8) & 1 ? 0.0 : -0.0;
            else if (kind == 1 && i > 0)
                x = -v[i - 1]; /* exact cancellation */
            else if (kind == 2)
                x = ldexp(x, (int)((u >> 8) % 121) - 60);
            else if (kind == 3)
                x = ldexp(x, (int)((u >> 8) % 3) + 14); /* near fp16's overflow */
            else if (kind == 4)
                x = ldexp(x, -(int)((u >> 8) % 20) - 12); /* fp16/e4m3 subnormal products */
            else if (kind == 5)
                x = ldexp(x, 120 + (int)((u >> 8) % 6)); /* bf16/fp32 overflow of sums */
            else if (kind == 6 && cls == IN_SPECIAL)
                x = ((u >> 8) % 3 == 0) ? NAN : ((u >> 9) & 1 ? INFINITY : -INFINITY);
            if (bin32 || (u >> 20) % 2)
                x = (float)x;
            break;
        }
        }
        v[i] = bin32 ? (double)(float)x : x;
    }
}

/* ---- comparisons ---- */

static long mismatches;
static long engine_hits[SRL__ENGINE_COUNT];

static void same(double got, double want, const char *what, const char *cfg, const char *extra,
                 size_t i, size_t j)
{
    CHECK(srl_test_same(got, want),
          "seed=%#llx %s %s %s [%zu,%zu]: got %a, want %a", (unsigned long long)SEED, what,
          cfg, extra, i, j, got, want);
    if (!srl_test_same(got, want))
        mismatches++;
}

static void init_rng(srl_rng *r, int kind, uint64_t salt)
{
    srl_rng_init(r, kind ? SRL_RNG_PCG32 : SRL_RNG_PCG64, SEED, salt);
    srl_rng_seek(r, (UINT64_C(1) << 40) + 12345 * salt);
}

static bool stochastic_use(const srl_accum *c, bool products)
{
    return sto(c->acc_mode) || (c->join && sto(c->join_mode)) ||
           (products && !c->fma && sto(c->prod_mode));
}

/* ---- sum, dot, axpy ---- */

static void test_vectors(size_t ci, int kind)
{
    const srl_accum *c = &cfgs[ci];
    const size_t nmax = 257;
    double x[257], y[257];
    char extra[96];
    for (size_t si = 0; si < NSIZES; si++) {
        const size_t n = sizes[si];
        for (int cls = 0; cls < IN_NCLASS; cls++) {
            if (cls == IN_SPECIAL && n > 7)
                continue;
            const uint64_t s = SEED + 1000 * ci + 10 * si + (uint64_t)cls;
            gen(x, nmax, cls, false, s);
            gen(y, nmax, cls, false, s + 7);
            snprintf(extra, sizeof extra, "n=%zu %s %s", n, class_names[cls],
                     kind ? "pcg32" : "pcg64");
            srl_rng r, r0;
            init_rng(&r, kind, s);
            r0 = r;
            double got = -1;
            CHECK(srl_sum(&got, x, n, c, &r) == SRL_OK, "srl_sum %s %s", configs[ci], extra);
            same(got, ref_eval(c, &r0, x, 1, NULL, 0, n, r0.counter), "sum", configs[ci], extra,
                 0, 0);
            CHECK(r.counter == r0.counter + ref_acc_count(n, c) &&
                      srl_sum_draws(n, c) == ref_acc_count(n, c),
                  "sum draws %s %s: counter advanced %llu", configs[ci], extra,
                  (unsigned long long)(r.counter - r0.counter));
            init_rng(&r, kind, s);
            r0 = r;
            CHECK(srl_dot(&got, x, y, n, c, &r) == SRL_OK, "srl_dot %s %s", configs[ci], extra);
            same(got, ref_eval(c, &r0, x, 1, y, 1, n, r0.counter), "dot", configs[ci], extra, 0,
                 0);
            CHECK(r.counter == r0.counter + ref_dot_count(n, c) &&
                      srl_dot_draws(n, c) == ref_dot_count(n, c),
                  "dot draws %s %s", configs[ci], extra);
            /* axpy: y[i] = round_acc(y[i] + round_prod(alpha x[i])), draws 2i and 2i + 1 */
            const double alpha = cls == IN_SPECIAL ? -0.0 : x[nmax - 1];
            double yy[257];
            memcpy(yy, y, sizeof yy);
            init_rng(&r, kind, s);
            r0 = r;
            CHECK(srl_axpy(yy, alpha, x, n, c, &r) == SRL_OK, "srl_axpy %s %s", configs[ci],
                  extra);
            /* (axpy has no joins: join= is ignored) */
            const bool any = sto(c->acc_mode) || (!c->fma && sto(c->prod_mode));
            for (size_t i = 0; i < n; i++) {
                const uint64_t ip = r0.counter + 2 * i, ia = ip + 1;
                double want;
                if (c->fma) {
                    want = OP(SRL_FMA, alpha, x[i], y[i], &c->acc_fmt, c->acc_mode, &r0, ia);
                } else {
                    const double t = OP(SRL_MUL, alpha, x[i], 0, &c->prod_fmt, c->prod_mode, &r0,
                                        ip);
                    want = OP(SRL_ADD, y[i], t, 0, &c->acc_fmt, c->acc_mode, &r0, ia);
                }
                same(yy[i], want, "axpy", configs[ci], extra, i, 0);
            }
            for (size_t i = n; i < nmax; i++)
                CHECK(srl_test_same(yy[i], y[i]), "axpy wrote past n");
            CHECK(r.counter == r0.counter + (any ? 2 * n : 0) &&
                      srl_axpy_draws(n, c) == (any ? 2 * n : 0),
                  "axpy draws %s %s", configs[ci], extra);
        }
    }
}

/* ---- gemv ---- */

static void test_gemv(size_t ci, int kind)
{
    const srl_accum *c = &cfgs[ci];
    static const size_t ms[] = {0, 1, 3, 7};
    char extra[96];
    for (size_t mi = 0; mi < 4; mi++) {
        for (size_t si = 0; si < NSIZES; si++) {
            const size_t m = ms[mi], n = sizes[si];
            if (m * n > 800)
                continue;
            const int cls = (int)((mi + si) % 4);
            const uint64_t s = SEED + 5000 * ci + 10 * mi + si;
            double *A = malloc((m * n + 1) * sizeof *A), x[257], yv[8];
            gen(A, m * n + 1, cls, false, s);
            gen(x, 257, cls, false, s + 1);
            snprintf(extra, sizeof extra, "m=%zu n=%zu %s %s", m, n, class_names[cls],
                     kind ? "pcg32" : "pcg64");
            srl_rng r, r0;
            init_rng(&r, kind, s);
            r0 = r;
            for (size_t i = 0; i < 8; i++)
                yv[i] = -1.0;
            CHECK(srl_gemv(yv, A, x, m, n, c, &r) == SRL_OK, "srl_gemv %s %s", configs[ci],
                  extra);
            const uint64_t D = ref_dot_count(n, c);
            for (size_t i = 0; i < m; i++)
                same(yv[i], ref_eval(c, &r0, A + i * n, 1, x, 1, n, r0.counter + i * D), "gemv",
                     configs[ci], extra, i, 0);
            CHECK(yv[m] == -1.0, "gemv wrote past m");
            CHECK(r.counter == r0.counter + m * D && srl_gemv_draws(m, n, c) == m * D,
                  "gemv draws %s %s", configs[ci], extra);
            free(A);
        }
    }
}

/* ---- gemm, all layouts ---- */

typedef struct shape {
    size_t m, n, k;
} shape;

static const shape shapes[] = {
    {0, 3, 5}, {3, 0, 5}, {2, 3, 0}, {1, 1, 1},  {2, 2, 2},  {3, 3, 3},   {7, 7, 7},
    {2, 64, 3}, {3, 100, 7}, {1, 257, 2}, {2, 9, 64}, {2, 8, 100}, {1, 17, 257}, {3, 65, 2},
    {9, 37, 20}, {4, 32, 3}, /* full and short blocks of rows (nat32_rows: 4 rows) */
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])
#define ALLCLASS_SHAPE 10 /* {2, 9, 64}: run with every input class */

enum { L_NN_D = 0, L_NN_F, L_NT_F, L_TN_F, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {"gemm", "gemm_f", "gemm_nt_f", "gemm_tn_f"};

static void test_gemm(size_t ci, int kind)
{
    const srl_accum *c = &cfgs[ci];
    const bool fits = srl_format_fits_float(&c->acc_fmt);
    char extra[128];
    for (int lay = 0; lay < NLAYOUTS; lay++) {
        const bool isf = lay != L_NN_D;
        for (size_t hc = 0; hc < NSHAPES + IN_NCLASS - 1; hc++) {
            /* every shape with a rotating input class, then shape {2, 9, 64} with every class */
            const size_t hi = hc < NSHAPES ? hc : ALLCLASS_SHAPE;
            const size_t m = shapes[hi].m, n = shapes[hi].n, k = shapes[hi].k;
            const int cls = hc < NSHAPES ? (int)((hi + (size_t)lay + ci) % IN_NCLASS)
                                         : (int)((hc - NSHAPES + 1 + hi + (size_t)lay + ci) %
                                                 IN_NCLASS);
            const uint64_t s = SEED + 9000 * ci + 100 * (uint64_t)lay + hc;
            /* operands as binary64 values (binary32 numbers for the float kernels) */
            double *A = malloc((m * k + 1) * sizeof *A), *B = malloc((k * n + 1) * sizeof *B);
            float *Af = malloc((m * k + 1) * sizeof *Af), *Bf = malloc((k * n + 1) * sizeof *Bf);
            double *C = malloc((m * n + 1) * sizeof *C);
            float *Cf = malloc((m * n + 1) * sizeof *Cf);
            gen(A, m * k + 1, cls, isf, s);
            gen(B, k * n + 1, cls, isf, s + 3);
            for (size_t i = 0; i < m * k + 1; i++)
                Af[i] = (float)A[i];
            for (size_t i = 0; i < k * n + 1; i++)
                Bf[i] = (float)B[i];
            snprintf(extra, sizeof extra, "%s m=%zu n=%zu k=%zu %s %s", layout_names[lay], m, n,
                     k, class_names[cls], kind ? "pcg32" : "pcg64");
            srl_rng r, r0;
            init_rng(&r, kind, s);
            r0 = r;
            const int eng = isf ? srl__kernels_engine(c, Af, Bf, m, n, k, 1, &r)
                                : srl__kernels_engine(c, A, B, m, n, k, 0, &r);
            if (eng >= 0)
                engine_hits[eng]++;
            int st;
            switch (lay) {
            case L_NN_D: st = srl_gemm(C, A, B, m, n, k, c, &r); break;
            case L_NN_F: st = srl_gemm_f(Cf, Af, Bf, m, n, k, c, &r); break;
            case L_NT_F: st = srl_gemm_nt_f(Cf, Af, Bf, m, n, k, c, &r); break;
            default: st = srl_gemm_tn_f(Cf, Af, Bf, m, n, k, c, &r); break;
            }
            if (isf && !fits) { /* acc_fmt wider than binary32: refused, nothing moves */
                CHECK(st == SRL_EINVAL && r.counter == r0.counter,
                      "%s %s: acc_fmt not a binary32 subset must be SRL_EINVAL", configs[ci],
                      extra);
                goto next;
            }
            CHECK(st == SRL_OK, "%s %s: status %d", configs[ci], extra, st);
            const uint64_t D = ref_dot_count(k, c);
            for (size_t i = 0; i < m; i++) {
                for (size_t j = 0; j < n; j++) {
                    /* the operand layouts: row i of op(A), column j of op(B) */
                    const double *xa;
                    size_t sxa;
                    const double *yb;
                    size_t syb;
                    if (lay == L_TN_F) { /* A is k x m */
                        xa = A + i, sxa = m;
                    } else {
                        xa = A + i * k, sxa = 1;
                    }
                    if (lay == L_NT_F) { /* B is n x k */
                        yb = B + j * k, syb = 1;
                    } else {
                        yb = B + j, syb = n;
                    }
                    const double want =
                        ref_eval(c, &r0, xa, sxa, yb, syb, k, r0.counter + (i * n + j) * D);
                    const double got = isf ? (double)Cf[i * n + j] : C[i * n + j];
                    same(got, isf ? (double)(float)want : want, layout_names[lay], configs[ci],
                         extra, i, j);
                    if (!srl_test_same(got, isf ? (double)(float)want : want) && mismatches <= 3)
                        for (size_t l = 0; l < k && l < 8; l++)
                            fprintf(stderr, "    term %zu: %a * %a\n", l, xa[l * sxa],
                                    yb[l * syb]);
                    if (isf)
                        CHECK(srl_test_same((double)(float)want, want),
                              "%s %s: the definition's result is not a binary32 number",
                              configs[ci], extra);
                }
            }
            CHECK(r.counter == r0.counter + m * n * D && srl_gemm_draws(m, n, k, c) == m * n * D,
                  "gemm draws %s %s: advanced %llu, want %llu", configs[ci], extra,
                  (unsigned long long)(r.counter - r0.counter), (unsigned long long)(m * n * D));
            if (!stochastic_use(c, true) || m * n * D == 0) {
                srl_rng t;
                init_rng(&t, kind, s);
                CHECK(srl_rng_next(&r) == srl_rng_next(&t), "%s %s: stream moved", configs[ci],
                      extra);
            }
        next:
            free(A);
            free(B);
            free(Af);
            free(Bf);
            free(C);
            free(Cf);
        }
    }
}

/* ---- plain loops ---- */

static void test_plain(void)
{
    const long before = srl_test_failures;
    srl_accum c64 = srl_accum_binary64(), c32 = c64;
    srl_err err;
    CHECK(srl_accum_parse(&c32, "prod=fp32:rn,acc=fp32:rn", &err) == SRL_OK, "%s", err.msg);
    enum { M = 5, N = 77, K = 131 };
    double A[M * K], B[K * N], C[M * N];
    float Af[M * K], Bf[K * N], Cf[M * N], Ct[M * N], Cn[M * N], Btf[N * K], Atf[K * M];
    gen(A, M * K, IN_F64, false, SEED + 1);
    gen(B, K * N, IN_F64, false, SEED + 2);
    double s = -1, want;
    CHECK(srl_sum(&s, A, M * K, &c64, NULL) == SRL_OK, "srl_sum binary64");
    want = A[0];
    for (size_t i = 1; i < M * K; i++)
        want = want + A[i];
    CHECK(srl_test_same(s, want), "binary64 sum: %a, plain loop %a", s, want);
    CHECK(srl_dot(&s, A, B, K, &c64, NULL) == SRL_OK, "srl_dot binary64");
    want = A[0] * B[0];
    for (size_t i = 1; i < K; i++)
        want = want + A[i] * B[i];
    CHECK(srl_test_same(s, want), "binary64 dot: %a, plain loop %a", s, want);
    CHECK(srl_gemm(C, A, B, M, N, K, &c64, NULL) == SRL_OK, "srl_gemm binary64");
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            double w = A[i * K] * B[j];
            for (size_t l = 1; l < K; l++)
                w = w + A[i * K + l] * B[l * N + j];
            CHECK(srl_test_same(C[i * N + j], w), "binary64 gemm [%zu,%zu]: %a, plain %a", i, j,
                  C[i * N + j], w);
        }
    /* fp32 rn on bf16 inputs: a plain binary32 loop */
    gen(A, M * K, IN_BF16, true, SEED + 3);
    gen(B, K * N, IN_BF16, true, SEED + 4);
    for (size_t i = 0; i < M * K; i++)
        Af[i] = (float)A[i];
    for (size_t i = 0; i < K * N; i++)
        Bf[i] = (float)B[i];
    for (size_t l = 0; l < K; l++)
        for (size_t j = 0; j < N; j++)
            Btf[j * K + l] = Bf[l * N + j];
    for (size_t i = 0; i < M; i++)
        for (size_t l = 0; l < K; l++)
            Atf[l * M + i] = Af[i * K + l];
    CHECK(srl_gemm_f(Cf, Af, Bf, M, N, K, &c32, NULL) == SRL_OK, "srl_gemm_f fp32");
    CHECK(srl_gemm_nt_f(Cn, Af, Btf, M, N, K, &c32, NULL) == SRL_OK, "srl_gemm_nt_f fp32");
    CHECK(srl_gemm_tn_f(Ct, Atf, Bf, M, N, K, &c32, NULL) == SRL_OK, "srl_gemm_tn_f fp32");
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float w = Af[i * K] * Bf[j];
            for (size_t l = 1; l < K; l++)
                w = w + Af[i * K + l] * Bf[l * N + j];
            CHECK(srl_test_same(Cf[i * N + j], w) && srl_test_same(Cn[i * N + j], w) &&
                      srl_test_same(Ct[i * N + j], w),
                  "fp32 gemm [%zu,%zu]: %a %a %a, plain float loop %a", i, j, Cf[i * N + j],
                  Cn[i * N + j], Ct[i * N + j], w);
        }
    GROUP("binary64 rn and fp32 rn (bf16 inputs) configs are plain loops", before);
}

/* ---- exact sr when the draw's high half ties with the fraction's ----
 * The vector engines compare the draw's high 32 bits with the fraction's first 32 and leave a
 * tie to the scalar code, which reads the low half. Build such ties on purpose: with draw
 * u = H 2^32 + lo of the second accumulation of C = [1, t] [1, 1]^T in bf16 with sr, the exact
 * sum 1 + t with t = H 2^-39 + L 2^-52 has fraction f with f 2^64 = H 2^32 + L 2^19: it rounds up
 * to 1 + 2^-7 iff lo < L 2^19. L = (lo >> 19) + 1 must go up, L = lo >> 19 must stay at 1. */
static void test_sr_ties(void)
{
    const long before = srl_test_failures;
    srl_accum c = srl_accum_binary64();
    srl_err err;
    CHECK(srl_accum_parse(&c, "prod=fp64:rn,acc=bf16:sr", &err) == SRL_OK, "%s", err.msg);
    int cases = 0;
    for (uint64_t salt = 0; salt < 64; salt++) {
        srl_rng r, r0;
        srl_rng_init(&r, SRL_RNG_PCG32, SEED, 900 + salt);
        srl_rng_seek(&r, 1000 * salt);
        r0 = r;
        const uint64_t u = srl_rng_draw_at(&r0, r0.counter + 1);
        const uint64_t H = u >> 32, lo = u & 0xffffffffu;
        if ((lo >> 19) + 1 >= (1u << 13))
            continue;
        for (int up = 0; up < 2; up++) {
            const uint64_t L = (lo >> 19) + (uint64_t)up;
            const double t = ldexp((double)H, -39) + ldexp((double)L, -52);
            const double A[2] = {1.0, t}, B[2] = {1.0, 1.0};
            double C = -1;
            r = r0;
            CHECK(srl_gemm(&C, A, B, 1, 1, 2, &c, &r) == SRL_OK, "srl_gemm tie case");
            const double want = up ? 1.0 + 0x1p-7 : 1.0;
            CHECK(C == want && srl_test_same(C, ref_eval(&c, &r0, A, 1, B, 1, 2, r0.counter)),
                  "salt %llu: u=%#llx t=%a: got %a, want %a", (unsigned long long)salt,
                  (unsigned long long)u, t, C, want);
            cases++;
        }
    }
    CHECK(cases >= 100, "only %d tie cases", cases);
    GROUP("sr decided by the draw's low half when the high halves tie", before);
}

/* The binary32 lanes (and the packed engine's emulation, x86-64-v4) decide sr from the draw's
 * high half alone: there the fraction's low word is 0, so equal high halves mean U >= f (stay). Find draws whose high half is r 2^24 (r < 2^8)
 * and make the exact sum's fraction exactly that: 1 + r 2^-15 into bf16 (spacing 2^-7 at 1) has
 * f = r 2^-8, so f 2^64 = r 2^56, whose high word is the draw's. The result must be 1. */
static void test_sr_ties32(void)
{
    const long before = srl_test_failures;
    srl_accum c = srl_accum_binary64();
    srl_err err;
    CHECK(srl_accum_parse(&c, "prod=bf16:rn,acc=bf16:sr", &err) == SRL_OK, "%s", err.msg);
    srl_rng scan;
    srl_rng_init(&scan, SRL_RNG_PCG32, SEED, 77);
    int found = 0;
    for (uint64_t j = 1; j < (UINT64_C(1) << 27) && found < 3; j++) {
        const uint64_t u = srl_rng_next(&scan); /* draw j - 1 */
        const uint64_t hi = u >> 32;
        if ((hi & 0xffffffu) || !hi || j < 2)
            continue;
        const uint64_t c0 = j - 2; /* the add of term 1 uses index c0 + 1 = j - 1 */
        const float t = (float)ldexp((double)(hi >> 24), -15);
        const float A[2] = {1.0f, t}, B[2] = {1.0f, 1.0f};
        double Ad[2] = {1.0, t}, Bd[2] = {1.0, 1.0};
        float C = -1;
        srl_rng r;
        srl_rng_init(&r, SRL_RNG_PCG32, SEED, 77);
        srl_rng_seek(&r, c0);
        const srl_rng r0 = r;
        const int eng = srl__kernels_engine(&c, A, B, 1, 1, 2, 1, &r);
        CHECK(eng == SRL__ENGINE_LANES32 || eng == SRL__ENGINE_PACKED_EMU32,
              "the tie case does not reach the binary32 lanes (or the packed engine's)");
        CHECK(srl_gemm_f(&C, A, B, 1, 1, 2, &c, &r) == SRL_OK, "srl_gemm_f tie case");
        CHECK(C == 1.0f && srl_test_same(C, ref_eval(&c, &r0, Ad, 1, Bd, 1, 2, c0)),
              "draw %#llx at index %llu, t = %a: got %a, want 1", (unsigned long long)u,
              (unsigned long long)(c0 + 1), (double)t, (double)C);
        found++;
    }
    CHECK(found == 3, "found %d tie draws", found);
    GROUP("sr in binary32 lanes: equal high halves stay", before);
}

/* A join whose exact sum lies between xmax and the next grid point rounds, under sr, to xmax
 * or to inf with probability 1/2: the vector engines flag it (out of range) and the scalar
 * code decides with the join's draw. Over many stream positions both outcomes must appear, each
 * equal to the definition. Cases: fp16, blocks of 1: 65504 + 16 (binary64 lanes; and srl_gemm);
 * bf16, blocks of 2: (0x1.fep126 + 0x1.fep126) + (2^118 + 2^118) from products exact in
 * binary32 (the binary32 lanes). */
static void test_sr_overflow_joins(void)
{
    const long before = srl_test_failures;
    static const struct {
        const char *spec;
        size_t k;
        float a[4], b;
        int engine;
    } cases[] = {
        {"prod=fp32:rn,acc=fp16:sr,order=blocked:1", 2, {65504.0f, 16.0f, 0, 0}, 1.0f,
         SRL__ENGINE_LANES64},
        {"prod=bf16:rn,acc=bf16:sr,order=blocked:2", 4, {0x1.fep63f, 0x1.fep63f, 0x1p55f, 0x1p55f},
         0x1p63f, SRL__ENGINE_LANES32},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        srl_accum c = srl_accum_binary64();
        srl_err err;
        CHECK(srl_accum_parse(&c, cases[ci].spec, &err) == SRL_OK, "%s", err.msg);
        const size_t k = cases[ci].k;
        float B[4];
        double Ad[4], Bd[4];
        for (size_t l = 0; l < 4; l++) {
            B[l] = cases[ci].b;
            Ad[l] = cases[ci].a[l];
            Bd[l] = B[l];
        }
        int seen_inf = 0, seen_max = 0;
        for (uint64_t pos = 0; pos < 64; pos++) {
            srl_rng r;
            init_rng(&r, 1, 7000 + pos);
            const srl_rng r0 = r;
            CHECK(srl__kernels_engine(&c, cases[ci].a, B, 1, 1, k, 1, &r) == cases[ci].engine,
                  "%s: not the intended engine", cases[ci].spec);
            float C = 0;
            double Cd = 0;
            CHECK(srl_gemm_f(&C, cases[ci].a, B, 1, 1, k, &c, &r) == SRL_OK, "srl_gemm_f");
            r = r0;
            CHECK(srl_gemm(&Cd, Ad, Bd, 1, 1, k, &c, &r) == SRL_OK, "srl_gemm");
            const double want = ref_eval(&c, &r0, Ad, 1, Bd, 1, k, r0.counter);
            CHECK(srl_test_same(C, want) && srl_test_same(Cd, want),
                  "%s at %llu: gemm_f %a, gemm %a, want %a", cases[ci].spec,
                  (unsigned long long)r0.counter, (double)C, Cd, want);
            seen_inf += isinf(want) != 0;
            seen_max += want == c.acc_fmt.xmax;
        }
        CHECK(seen_inf > 0 && seen_max > 0 && seen_inf + seen_max == 64,
              "%s: %d inf, %d xmax of 64", cases[ci].spec, seen_inf, seen_max);
    }
    GROUP("sr joins past xmax: inf or xmax by the join's draw", before);
}

/* Two cases where a lane's shortcut would go wrong with tiny probability, built on purpose:
 *  - binary64 products that underflow (2^-600 * 2^-600): the hardware product is 0 but the
 *    exact one is not, and directed product roundings must see it (the binary64 lanes flag
 *    p == 0 unless a factor is 0);
 *  - a binary32-lane join 1 + 2^-30 (inexact in binary32) into bf16 with sr: exact f = 2^-23,
 *    so it goes up iff the join's draw is below 2^41; scan the stream for such draws. */
static void test_rare_lanes(void)
{
    const long before = srl_test_failures;
    srl_err err;
    static const char *const under[] = {"prod=bf16:ru,acc=bf16:rn", "prod=fp32:rd,acc=fp32:rn",
                                        "prod=bf16:rn,acc=bf16:ru,fma=on"};
    enum { K = 3, N = 9 };
    double A[K], B[K * N], C[N];
    for (size_t l = 0; l < K; l++)
        A[l] = l == 0 ? 0x1p-600 : l == 1 ? -0x1p-600 : 0x1.8p-700;
    for (size_t i = 0; i < K * N; i++)
        B[i] = (i % 4 == 3) ? 0.0 : ldexp(i % 2 ? -1.0 : 1.0, -500 - (int)(i % 7) * 20);
    for (size_t ci = 0; ci < sizeof under / sizeof under[0]; ci++) {
        srl_accum c = srl_accum_binary64();
        CHECK(srl_accum_parse(&c, under[ci], &err) == SRL_OK, "%s", err.msg);
        CHECK(srl_gemm(C, A, B, 1, N, K, &c, NULL) == SRL_OK, "srl_gemm %s", under[ci]);
        for (size_t j = 0; j < N; j++)
            same(C[j], ref_eval(&c, NULL, A, 1, B + j, N, K, 0), "gemm (underflow)", under[ci],
                 "", 0, j);
    }
    srl_accum c = srl_accum_binary64();
    CHECK(srl_accum_parse(&c, "prod=bf16:rn,acc=bf16:sr,order=blocked:1", &err) == SRL_OK, "%s",
          err.msg);
    const float Af[2] = {1.0f, 0x1p-30f}, Bf[2] = {1.0f, 1.0f};
    const double Ad[2] = {1.0, 0x1p-30}, Bd[2] = {1.0, 1.0};
    srl_rng scan;
    srl_rng_init(&scan, SRL_RNG_PCG32, SEED, 99);
    int found = 0;
    for (uint64_t j = 0; j < (UINT64_C(1) << 27) && found < 2; j++) {
        const uint64_t u = srl_rng_next(&scan); /* draw j */
        if (u >> 41 || j < 2)
            continue;
        /* k = 2 terms, blocks of 1: starts at c0, c0 + 1; the join at c0 + 2 = j */
        srl_rng r;
        srl_rng_init(&r, SRL_RNG_PCG32, SEED, 99);
        srl_rng_seek(&r, j - 2);
        const srl_rng r0 = r;
        CHECK(srl__kernels_engine(&c, Af, Bf, 1, 1, 2, 1, &r) == SRL__ENGINE_LANES32,
              "the join case does not reach the binary32 lanes");
        float C1 = 0;
        CHECK(srl_gemm_f(&C1, Af, Bf, 1, 1, 2, &c, &r) == SRL_OK, "srl_gemm_f");
        CHECK(C1 == 1.0f + 0x1p-7f && srl_test_same(C1, ref_eval(&c, &r0, Ad, 1, Bd, 1, 2, j - 2)),
              "join draw %#llx: got %a, want 1 + 2^-7", (unsigned long long)u, (double)C1);
        found++;
    }
    CHECK(found == 2, "found %d small draws", found);
    GROUP("underflowing binary64 products; an inexact binary32 join that goes up", before);
}

/* ---- the scan behind the binary32-lane engine, at its boundaries ----
 * src/linalg/kernels.c computes products in binary32 when A's and B's significant bits sum to at most
 * 24 and every nonzero product lies in [2^-126, 2^128). Operands just inside and just outside
 * (12 + 12 and 12 + 13 bits; exponent sums -126 / -127 and 126 / 127) with configs whose result
 * would change if an inexact binary32 product were taken as exact (fma with binary32 rn, a
 * directed product rounding, bf16 products with sr) must all equal the definition. */
static void scan_values(float *x, size_t n, int bits, int e0, int e1, uint64_t seed)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, seed, 3);
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = srl_rng_next(&g);
        /* an odd integer of exactly `bits` bits, times 2^e with e in [e0, e1] */
        const uint64_t M = bits > 1 ? (UINT64_C(1) << (bits - 1)) | (u >> (65 - bits)) | 1u : 1u;
        const int e = e0 + (int)((u >> 8) % (uint64_t)(e1 - e0 + 1));
        const double v = ldexp((double)M, e - (bits - 1));
        x[i] = (float)((u >> 3) & 1 ? -v : v);
    }
}

static void test_scan_boundaries(void)
{
    const long before = srl_test_failures;
    static const char *const cs[] = {"prod=fp32:rn,acc=fp32:rn,fma=on", "prod=fp32:rz,acc=fp32:rn",
                                     "prod=bf16:ru,acc=bf16:sr", "prod=fp32:rn,acc=fp32:rd"};
    static const struct {
        int ba, bb;      /* significant bits of A's and B's values */
        int ea0, ea1;    /* A's exponents */
        int eb0, eb1;    /* B's exponents */
    } cases[] = {
        {12, 12, -2, 2, -2, 2},    /* 24 bits: exact in binary32 */
        {12, 13, -2, 2, -2, 2},    /* 25 bits */
        {1, 24, -3, 3, -3, 3},     /* 25 bits (a power of two times 24 bits is exact) */
        {8, 8, -63, -60, -66, -63}, /* exponent sum down to -126 */
        {8, 8, -63, -60, -67, -63}, /* down to -127: subnormal products (exact: 16 bits) */
        {12, 12, -63, -60, -64, -63}, /* down to -127: subnormal products, inexact */
        {12, 12, -63, -60, -70, -63}, /* down to -133 */
        {8, 8, 60, 63, 60, 63},     /* up to 126 */
        {8, 8, 60, 64, 60, 63},     /* up to 127: products may overflow binary32 */
    };
    enum { M = 3, N = 37, K = 41 };
    float A[M * K], B[K * N], C[M * N];
    double Ad[M * K], Bd[K * N];
    char extra[96];
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {
        srl_accum c = srl_accum_binary64();
        srl_err err;
        CHECK(srl_accum_parse(&c, cs[ci], &err) == SRL_OK, "%s", err.msg);
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            scan_values(A, M * K, cases[k].ba, cases[k].ea0, cases[k].ea1, SEED + 31 * k + ci);
            scan_values(B, K * N, cases[k].bb, cases[k].eb0, cases[k].eb1, SEED + 37 * k + ci);
            for (size_t i = 0; i < M * K; i++)
                Ad[i] = A[i];
            for (size_t i = 0; i < K * N; i++)
                Bd[i] = B[i];
            snprintf(extra, sizeof extra, "scan case %zu (bits %d+%d)", k, cases[k].ba,
                     cases[k].bb);
            srl_rng r, r0;
            init_rng(&r, 1, 4000 + 10 * ci + k);
            r0 = r;
            CHECK(srl_gemm_f(C, A, B, M, N, K, &c, &r) == SRL_OK, "%s %s", cs[ci], extra);
            const uint64_t D = ref_dot_count(K, &c);
            for (size_t i = 0; i < M; i++)
                for (size_t j = 0; j < N; j++)
                    same(C[i * N + j],
                         (float)ref_eval(&c, &r0, Ad + i * K, 1, Bd + j, N, K,
                                         r0.counter + (i * N + j) * D),
                         "gemm_f", cs[ci], extra, i, j);
        }
    }
    GROUP("binary32 products: the scan's boundaries", before);
}

/* ---- bad arguments ---- */

static void test_errors(void)
{
    const long before = srl_test_failures;
    srl_accum c = srl_accum_binary64(), bad;
    srl_err err;
    double x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1}, s = 0;
    float xf[4] = {1, 2, 3, 4}, Cf[4];
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, 1, 2);
    const srl_rng r0 = r;
    CHECK(srl_sum(NULL, x, 4, &c, NULL) == SRL_EINVAL, "sum NULL s");
    CHECK(srl_sum(&s, NULL, 4, &c, NULL) == SRL_EINVAL, "sum NULL x");
    CHECK(srl_sum(&s, NULL, 0, &c, NULL) == SRL_OK && srl_test_same(s, 0.0), "empty sum is +0");
    CHECK(srl_sum(&s, x, 4, NULL, NULL) == SRL_EINVAL, "sum NULL config");
    CHECK(srl_dot(&s, x, NULL, 4, &c, NULL) == SRL_EINVAL, "dot NULL y");
    CHECK(srl_axpy(NULL, 1, x, 4, &c, NULL) == SRL_EINVAL, "axpy NULL y");
    CHECK(srl_gemv(NULL, x, y, 2, 2, &c, NULL) == SRL_EINVAL, "gemv NULL y");
    CHECK(srl_gemm(NULL, x, y, 2, 2, 1, &c, NULL) == SRL_EINVAL, "gemm NULL C");
    CHECK(srl_gemm(x, NULL, y, 2, 2, 1, &c, NULL) == SRL_EINVAL, "gemm NULL A");
    CHECK(srl_gemm_f(Cf, xf, NULL, 2, 2, 1, &c, NULL) == SRL_EINVAL, "gemm_f NULL B");
    CHECK(srl_gemm_nt_f(Cf, NULL, xf, 2, 2, 1, &c, NULL) == SRL_EINVAL, "gemm_nt_f NULL A");
    CHECK(srl_gemm_tn_f(NULL, xf, xf, 2, 2, 1, &c, NULL) == SRL_EINVAL, "gemm_tn_f NULL C");
    /* block 0, kahan with pairwise or blocked, invalid modes, unknown order */
    bad = c;
    bad.order = SRL_ORDER_BLOCKED;
    bad.block = 0;
    CHECK(srl_sum(&s, x, 4, &bad, NULL) == SRL_EINVAL, "block 0");
    CHECK(srl_gemm(x, x, y, 2, 2, 1, &bad, NULL) == SRL_EINVAL, "gemm block 0");
    CHECK(srl_sum_draws(4, &bad) == 0 && srl_gemm_draws(2, 2, 4, &bad) == 0, "draws of invalid");
    bad = c;
    bad.kahan = true;
    bad.order = SRL_ORDER_PAIRWISE;
    CHECK(srl_dot(&s, x, y, 4, &bad, NULL) == SRL_EINVAL, "kahan+pairwise");
    CHECK(srl_gemm_f(Cf, xf, xf, 2, 2, 1, &bad, NULL) == SRL_EINVAL, "gemm_f kahan+pairwise");
    bad.order = SRL_ORDER_BLOCKED;
    bad.block = 4;
    CHECK(srl_gemv(y, x, y, 2, 2, &bad, NULL) == SRL_EINVAL, "kahan+blocked");
    CHECK(srl_axpy(y, 1.0, x, 4, &bad, NULL) == SRL_EINVAL, "axpy with an invalid config");
    bad = c;
    bad.order = (srl_order)7;
    CHECK(srl_sum(&s, x, 4, &bad, NULL) == SRL_EINVAL, "unknown order");
    bad = c;
    bad.acc_mode.mode = SRL_SR_BITS;
    bad.acc_mode.r = 0;
    CHECK(srl_sum(&s, x, 4, &bad, &r) == SRL_EINVAL, "sr:r=0");
    /* stochastic without a stream; the _f kernels with an accumulator wider than binary32 */
    bad = c;
    CHECK(srl_accum_parse(&bad, "acc=bf16:sr", &err) == SRL_OK, "%s", err.msg);
    CHECK(srl_sum(&s, x, 4, &bad, NULL) == SRL_EINVAL, "sr with NULL rng");
    CHECK(srl_gemm_f(Cf, xf, xf, 2, 2, 1, &bad, NULL) == SRL_EINVAL, "gemm_f sr with NULL rng");
    CHECK(srl_gemm_f(Cf, xf, xf, 2, 2, 1, &c, NULL) == SRL_EINVAL, "gemm_f with fp64 acc");
    bad = c;
    CHECK(srl_accum_parse(&bad, "prod=bf16:sr,fma=on", &err) == SRL_OK, "%s", err.msg);
    CHECK(srl_dot(&s, x, y, 4, &bad, NULL) == SRL_OK, "fma ignores prod_mode: NULL rng is fine");
    CHECK(memcmp(&r, &r0, sizeof r) == 0, "a refused call moved the stream");
    GROUP("bad arguments are SRL_EINVAL and change nothing", before);
}

/* ---- srl_accum_parse / srl_accum_name ---- */

/* ---- the packed binary32 engine at its cuts (src/linalg/gemm32.c) ----
 * The packed engine cuts k into chunks of at most 256 terms (a sum waits in C between two), the
 * rows into blocks of 96 and panels of 6, the columns into blocks of 1024 and panels of up to
 * 64 (16 or 8 below AVX-512; 32 for the emulated tiles), and, with blocked:K, a chunk into whole
 * blocks (chunks of K terms for K > 256, with fewer rows and columns per block; K > 4096 goes to
 * the lanes). Shapes here cross each cut in every layout: several chunks, rows and columns past
 * a block and partial panels on both edges. The native configs run on binary32 values and
 * bf16 values 2^-60 .. 2^60; the emulated ones (x86-64-v4: bf16 products, rz, rn and sr
 * accumulators, the 14-bit accumulator in blocks of 128) on bf16 values, near 1 or near 2^-10
 * (fp16's subnormal sums, which the engine hands to the definition lane by lane); bf16 products
 * of e4m3 values, which bf16 holds exactly, on the native engine. */
typedef struct cut_spec {
    const char *spec;
    int emu; /* 0: native (binary32 / bf16-wide inputs); 1: emulated on bf16 inputs; 2: on tiny
              * ones; 3: native on e4m3 inputs (bf16 products hold them exactly) */
} cut_spec;

/* At every instruction-set level 0 .. top (srl__kernels_isa), against one reference. */
static void test_gemm32_cuts(int top)
{
    static const cut_spec specs[] = {
        {"prod=fp32:rn,acc=fp32:rn", 0},
        {"prod=fp32:rn,acc=fp32:rn,fma=on", 0},
        {"prod=fp32:rn,acc=fp32:rn,order=blocked:100", 0},
        {"prod=fp32:rn,acc=fp32:rn,fma=on,order=blocked:300", 0},
        {"prod=fp32:rn,acc=fp32:rn,order=blocked:1000", 0},
        {"prod=fp32:rn,acc=fp32:rn,order=blocked:4500", 0},
        {"prod=bf16:rn,acc=fp32:rn", 1},
        {"prod=bf16:rn,acc=fp32:rn,order=blocked:100", 1},
        {"prod=fp32:rn,acc=bf16:sr", 1},
        {"prod=bf16:rn,acc=bf16:sr", 1},
        {"prod=bf16:rn,acc=bf16:rn,order=blocked:100", 1},
        {"prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:128", 1},
        {"prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:128,join=fp32:rn", 1},
        {"prod=bf16:rn,acc=bf16:sr,order=blocked:100,join=fp32:rn", 1},
        {"prod=fp32:rn,acc=fp16:sr", 2},
        {"prod=tf32:rn,acc=fp16:rz", 2},
        {"prod=fp32:rn,acc=fp16:rn", 2},
        {"prod=bf16:rn,acc=fp32:rn", 3},
        {"prod=bf16:rn,acc=fp32:rn,order=blocked:100", 3},
    };
    static const shape cut_shapes[] = {
        {13, 70, 300}, {100, 5, 300}, {2, 1100, 3}, {7, 33, 2500}, {1, 3, 5000},
    };
    const long before = srl_test_failures;
    char extra[160];
    long emulated = 0;
    for (size_t si = 0; si < sizeof specs / sizeof *specs; si++) {
        srl_accum c = srl_accum_binary64();
        srl_err err;
        CHECK(srl_accum_parse(&c, specs[si].spec, &err) == SRL_OK, "%s: %s", specs[si].spec,
              err.msg);
        const int emu = specs[si].emu;
        for (size_t hi = 0; hi < sizeof cut_shapes / sizeof *cut_shapes; hi++) {
            const size_t m = cut_shapes[hi].m, n = cut_shapes[hi].n, k = cut_shapes[hi].k;
            if (k > 2000 && (c.order != SRL_ORDER_BLOCKED || c.block < (emu ? 100 : 1000)))
                continue; /* the long sums only where they cross a block's cut */
            const bool lanes = c.order == SRL_ORDER_BLOCKED && c.block > 4096 && c.block < k;
            for (int lay = L_NN_F; lay < NLAYOUTS; lay++) {
                const int cls = emu == 2 ? IN_TINY
                                : emu    ? IN_BF16
                                : (int)((si + hi + (size_t)lay) % 2) ? IN_BF16W
                                                                      : IN_F32;
                const uint64_t s = SEED + 77000 + 100 * si + 10 * hi + (uint64_t)lay;
                double *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B);
                float *Af = malloc(m * k * sizeof *Af), *Bf = malloc(k * n * sizeof *Bf);
                float *Cf = malloc(m * n * sizeof *Cf);
                gen(A, m * k, cls, true, s);
                gen(B, k * n, cls, true, s + 3);
                if (emu == 3) {
                    const srl_format *e4m3 = srl_format_find("e4m3");
                    for (size_t i = 0; i < m * k; i++)
                        A[i] = srl_round(A[i], e4m3, SRL_ROUND_RN, NULL);
                    for (size_t i = 0; i < k * n; i++)
                        B[i] = srl_round(B[i], e4m3, SRL_ROUND_RN, NULL);
                }
                for (size_t i = 0; i < m * k; i++)
                    Af[i] = (float)A[i];
                for (size_t i = 0; i < k * n; i++)
                    Bf[i] = (float)B[i];
                srl_rng r0;
                init_rng(&r0, 1, s);
                const uint64_t D = ref_dot_count(k, &c);
                double *want = malloc(m * n * sizeof *want);
                for (size_t i = 0; i < m; i++)
                    for (size_t j = 0; j < n; j++) {
                        const double *xa = lay == L_TN_F ? A + i : A + i * k;
                        const double *yb = lay == L_NT_F ? B + j * k : B + j;
                        want[i * n + j] =
                            ref_eval(&c, &r0, xa, lay == L_TN_F ? m : 1, yb,
                                     lay == L_NT_F ? 1 : n, k, r0.counter + (i * n + j) * D);
                    }
                for (int lvl = 0; lvl <= top; lvl++) {
                    srl__kernels_isa(lvl);
                    snprintf(extra, sizeof extra, "%s m=%zu n=%zu k=%zu %s level %d",
                             layout_names[lay], m, n, k, class_names[cls], lvl);
                    srl_rng r = r0;
                    const int eng = srl__kernels_engine(&c, Af, Bf, m, n, k, 1, &r);
                    if (emu == 3) {
                        CHECK(eng == SRL__ENGINE_NATIVE32, "%s %s: engine %d", specs[si].spec,
                              extra, eng);
                    } else if (emu) { /* the packed engine's emulation at x86-64-v4 */
                        emulated += eng == SRL__ENGINE_PACKED_EMU32;
                        CHECK(lvl < 2 ? eng != SRL__ENGINE_PACKED_EMU32
                                      : eng == SRL__ENGINE_PACKED_EMU32,
                              "%s %s: engine %d", specs[si].spec, extra, eng);
                    } else {
                        /* the native engine, fused or not (exact products make fma the
                         * unfused one); without FMA hardware a fused product may take the
                         * lanes */
                        const bool native =
                            eng == SRL__ENGINE_NATIVE32 || eng == SRL__ENGINE_NATIVE32_FMA;
                        CHECK(lanes ? eng == SRL__ENGINE_LANES64
                                    : native || (c.fma && lvl == 0),
                              "%s %s: engine %d", specs[si].spec, extra, eng);
                    }
                    int st;
                    switch (lay) {
                    case L_NN_F: st = srl_gemm_f(Cf, Af, Bf, m, n, k, &c, &r); break;
                    case L_NT_F: st = srl_gemm_nt_f(Cf, Af, Bf, m, n, k, &c, &r); break;
                    default: st = srl_gemm_tn_f(Cf, Af, Bf, m, n, k, &c, &r); break;
                    }
                    CHECK(st == SRL_OK, "%s %s: status %d", specs[si].spec, extra, st);
                    for (size_t o = 0; o < m * n && st == SRL_OK; o++)
                        same((double)Cf[o], (double)(float)want[o], "gemm32 cuts",
                             specs[si].spec, extra, o / n, o % n);
                }
                srl__kernels_isa(-1);
                free(want);
                free(A);
                free(B);
                free(Af);
                free(Bf);
                free(Cf);
            }
        }
    }
    CHECK(top < 2 || emulated > 0, "no emulated product");
    GROUP("the packed binary32 engine across its cuts, every level", before);
}

/* The packed engine's sr (x86-64-v4) finds U < f from the draw's high half (Z against the sum's
 * fraction R) except when they are equal and the binary32 sum was inexact: then the exact sum is
 * a little above |d|, and whether U < f depends on bits of the draw beyond the high half, which
 * the definition, redone for that lane, reads. Sum 1 + 2^-30 into bf16: the binary32 sum (toward
 * zero) is 1, R = 0 and f = 2^-23; draws whose top 16 bits are 0 are such ties, and the result
 * is 1 + 2^-7 (away) for those below 2^-23, 1 for the others. Both must appear, each equal to
 * the definition. (On the lanes engines, below x86-64-v4, the same cases hold.) */
static void test_sr_inexact_ties(void)
{
    const long before = srl_test_failures;
    srl_accum c = srl_accum_binary64();
    srl_err err;
    CHECK(srl_accum_parse(&c, "prod=fp32:rn,acc=bf16:sr", &err) == SRL_OK, "%s", err.msg);
    static uint64_t found[4], draws[4]; /* the first two away and two stay cases, searched once */
    static int nfound;
    if (!nfound) {
        srl_rng scan;
        srl_rng_init(&scan, SRL_RNG_PCG32, SEED, 78);
        int na = 0, ns = 0;
        for (uint64_t j = 1; j < (UINT64_C(1) << 28) && (na < 2 || ns < 2); j++) {
            const uint64_t u = srl_rng_next(&scan); /* draw j - 1 */
            if ((u >> 48) || j < 2 || ((u >> 41) == 0 ? na : ns) >= 2)
                continue;
            *((u >> 41) == 0 ? &na : &ns) += 1;
            found[nfound] = j - 2; /* the add of term 1 uses index c0 + 1 = j - 1 */
            draws[nfound++] = u;
        }
    }
    int away = 0, stay = 0;
    for (int f = 0; f < nfound; f++) {
        const uint64_t u = draws[f], c0 = found[f];
        const bool is_away = (u >> 41) == 0; /* U < 2^-23 */
        const float A[2] = {1.0f, 0x1p-30f}, B[2] = {1.0f, 1.0f};
        const double Ad[2] = {1.0, 0x1p-30}, Bd[2] = {1.0, 1.0};
        float C = -1;
        srl_rng r;
        srl_rng_init(&r, SRL_RNG_PCG32, SEED, 78);
        srl_rng_seek(&r, c0);
        const srl_rng r0 = r;
        CHECK(srl_gemm_f(&C, A, B, 1, 1, 2, &c, &r) == SRL_OK, "srl_gemm_f inexact tie");
        const double want = is_away ? 1.0 + 0x1p-7 : 1.0;
        CHECK(C == (float)want && srl_test_same(C, ref_eval(&c, &r0, Ad, 1, Bd, 1, 2, c0)),
              "draw %#llx at index %llu: got %a, want %a", (unsigned long long)u,
              (unsigned long long)(c0 + 1), (double)C, want);
        *(is_away ? &away : &stay) += 1;
    }
    CHECK(away == 2 && stay == 2, "found %d away and %d stay draws", away, stay);
    GROUP("sr of an inexact binary32 sum whose draw ties the fraction's high part", before);
}

static void test_parse(void)
{
    const long before = srl_test_failures;
    char buf[512], buf2[512];
    srl_err err;
    for (size_t i = 0; i < NCONFIGS; i++) {
        srl_accum a = srl_accum_binary64(), b = srl_accum_binary64();
        CHECK(srl_accum_parse(&a, configs[i], &err) == SRL_OK, "%s: %s", configs[i], err.msg);
        srl_accum_name(buf, sizeof buf, &a);
        CHECK(srl_accum_parse(&b, buf, &err) == SRL_OK, "%s -> %s: %s", configs[i], buf, err.msg);
        srl_accum_name(buf2, sizeof buf2, &b);
        CHECK(!strcmp(buf, buf2) && srl_format_equal(&a.prod_fmt, &b.prod_fmt) &&
                  srl_format_equal(&a.acc_fmt, &b.acc_fmt) &&
                  a.prod_mode.mode == b.prod_mode.mode && a.prod_mode.r == b.prod_mode.r &&
                  a.acc_mode.mode == b.acc_mode.mode && a.acc_mode.r == b.acc_mode.r &&
                  a.fma == b.fma && a.order == b.order && a.kahan == b.kahan &&
                  (a.order != SRL_ORDER_BLOCKED || a.block == b.block) && a.join == b.join &&
                  (!a.join || (srl_format_equal(&a.join_fmt, &b.join_fmt) &&
                               a.join_mode.mode == b.join_mode.mode &&
                               a.join_mode.r == b.join_mode.r)),
              "round trip %s -> %s -> %s", configs[i], buf, buf2);
    }
    srl_accum a = srl_accum_binary64();
    CHECK(!strcmp(srl_accum_name(buf, sizeof buf, &a),
                  "prod=fp64:rn,acc=fp64:rn,fma=off,order=recursive,kahan=off"),
          "default name %s", buf);
    CHECK(srl_accum_parse(&a, "acc=bf16:sr:r=16,order=blocked:32", &err) == SRL_OK, "%s",
          err.msg);
    CHECK(!strcmp(srl_accum_name(buf, sizeof buf, &a),
                  "prod=fp64:rn,acc=bf16:sr:r=16,fma=off,order=blocked:32,kahan=off"),
          "name %s", buf);
    CHECK(srl_accum_parse(&a, "prod=(p=8,emax=7,subnormals=off):rz,acc=fp16", &err) == SRL_OK,
          "%s", err.msg);
    CHECK(a.prod_fmt.p == 8 && a.prod_fmt.emax == 7 && !a.prod_fmt.subnormals &&
              a.prod_mode.mode == SRL_RZ && a.acc_fmt.p == 11 && a.acc_mode.mode == SRL_SR_BITS &&
              a.acc_mode.r == 16,
          "custom format in parentheses; acc=FMT keeps the mode");
    srl_accum_name(buf, sizeof buf, &a);
    CHECK(strstr(buf, "prod=(") != NULL, "custom formats are named in parentheses: %s", buf);
    const srl_accum keep = a;
    static const struct {
        const char *spec;
        int status;
    } bad[] = {
        {"prod=bf16:rn,acc", SRL_EPARSE},     {"prod=bf17:rn", SRL_EPARSE},
        {"acc=bf16:rr", SRL_EPARSE},          {"fma=yes", SRL_EPARSE},
        {"order=blocked", SRL_EPARSE},        {"order=blocked:x", SRL_EPARSE},
        {"order=zigzag", SRL_EPARSE},         {"colour=red", SRL_EPARSE},
        {"prod=(p=8,emax=127:rn", SRL_EPARSE}, {"prod=p=8,emax=127:rn", SRL_EPARSE},
        {"acc=fp32:rn,", SRL_EPARSE},         {"order=blocked:0", SRL_EINVAL},
        {"order=pairwise,kahan=on", SRL_EINVAL}, {"acc=bf16:sr:r=65", SRL_EINVAL},
        {"order=recursive,join=fp32:rn", SRL_EINVAL}, {"order=blocked:4,join=fp33", SRL_EPARSE},
        {"order=blocked:4,join=fp32:rx", SRL_EPARSE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        const int st = srl_accum_parse(&a, bad[i].spec, &err);
        CHECK(st == bad[i].status && err.msg[0], "'%s': status %d (want %d), message '%s'",
              bad[i].spec, st, bad[i].status, err.msg);
        CHECK(memcmp(&a, &keep, sizeof a) == 0, "'%s': a failed parse changed the config",
              bad[i].spec);
    }
    a = srl_accum_binary64();
    CHECK(srl_accum_parse(&a, "kahan=on", &err) == SRL_OK, "%s", err.msg);
    CHECK(srl_accum_parse(&a, "order=blocked:8", &err) == SRL_EINVAL,
          "kahan already on: blocked is a contradiction");
    CHECK(srl_accum_parse(&a, "", &err) == SRL_OK && a.kahan, "empty spec keeps everything");
    a = srl_accum_binary64();
    CHECK(srl_accum_parse(&a, "acc=bf16:sr,order=blocked:128,join=fp32", &err) == SRL_OK &&
              a.join && a.join_fmt.p == 24 && a.join_mode.mode == SRL_SR,
          "join=FMT keeps the accumulator's mode");
    CHECK(!strcmp(srl_accum_name(buf, sizeof buf, &a),
                  "prod=fp64:rn,acc=bf16:sr,fma=off,order=blocked:128,kahan=off,join=fp32:sr"),
          "name with join: %s", buf);
    CHECK(srl_accum_parse(&a, "join=acc", &err) == SRL_OK && !a.join, "join=acc clears it");
    CHECK(!strcmp(srl_accum_name(buf, sizeof buf, &a),
                  "prod=fp64:rn,acc=bf16:sr,fma=off,order=blocked:128,kahan=off"),
          "name without join: %s", buf);
    GROUP("srl_accum_parse and srl_accum_name", before);
}

int main(void)
{
    srl_err err;
    for (size_t i = 0; i < NCONFIGS; i++) {
        cfgs[i] = srl_accum_binary64();
        if (srl_accum_parse(&cfgs[i], configs[i], &err) != SRL_OK) {
            fprintf(stderr, "config %s: %s\n", configs[i], err.msg);
            return 1;
        }
    }
    const int top = srl__kernels_isa(-1);
    printf("vector engines tested at instruction-set levels 0 .. %d (0 baseline, 1 x86-64-v3, "
           "2 x86-64-v4, 3 x86-64-v4 with AVX-512 BF16)\n", top);
    test_parse();
    test_errors();
    test_plain();
    test_sr_ties();
    for (int lvl = 0; lvl <= top; lvl++) {
        srl__kernels_isa(lvl);
        test_rare_lanes();
    }
    for (int lvl = 0; lvl <= top; lvl++) {
        srl__kernels_isa(lvl);
        test_sr_overflow_joins();
    }
    for (int lvl = 0; lvl <= top; lvl++) {
        srl__kernels_isa(lvl);
        test_sr_ties32();
    }
    for (int lvl = 0; lvl <= top; lvl++) {
        srl__kernels_isa(lvl);
        test_scan_boundaries();
    }
    test_gemm32_cuts(top);
    for (int lvl = 0; lvl <= top; lvl++) {
        srl__kernels_isa(lvl);
        test_sr_inexact_ties();
    }
    srl__kernels_isa(-1);
    for (size_t ci = 0; ci < NCONFIGS; ci++) {
        const long before = srl_test_failures;
        mismatches = 0;
        for (int kind = 0; kind < 2; kind++) {
            if (kind == 0 && !stochastic_use(&cfgs[ci], true))
                continue; /* deterministic: the stream kind cannot matter */
            test_vectors(ci, kind);
            test_gemv(ci, kind);
            for (int lvl = 0; lvl <= top; lvl++) {
                srl__kernels_isa(lvl);
                test_gemm(ci, kind);
            }
            srl__kernels_isa(-1);
        }
        char name[600];
        snprintf(name, sizeof name, "%s: sum, dot, axpy, gemv, gemm (4 layouts) = definition",
                 configs[ci]);
        GROUP(name, before);
    }
    {
        static const char *const engine_names[SRL__ENGINE_COUNT] = {
            "scalar", "native binary32", "native binary32 fma", "native binary64",
            "native binary64 fma", "binary64 lanes", "binary32 lanes", "packed emulated"};
        const long before = srl_test_failures;
        for (int e = 0; e < SRL__ENGINE_COUNT; e++) {
            printf("  engine %-20s %ld calls\n", engine_names[e], engine_hits[e]);
            CHECK(engine_hits[e] > 0 ||
                      (top == 0 && (e == SRL__ENGINE_NATIVE32_FMA ||
                                    e == SRL__ENGINE_NATIVE64_FMA)) ||
                      (top < 2 && e == SRL__ENGINE_PACKED_EMU32),
                  "no matrix product took the %s engine", engine_names[e]);
        }
        GROUP("the cases reach every engine of srl_gemm*", before);
    }
    TEST_END();
}
