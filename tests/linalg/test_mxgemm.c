/* tests/linalg/test_mxgemm.c: the matrix product of block-scaled operands (include/srlab/mxgemm.h)
 * against a straightforward reference, bit for bit (suite `oracle`).
 *
 * The reference follows the header's definition step by step with other code:
 *   - the rotation as the matrix it is: y_i = 2^e sum_j H_ij s_j x_j with H_ij =
 *     (-1)^popcount(i&j), summed directly (O(g^2), not the butterfly) with the signs read from
 *     the draws the header names (srl_rng_draw_at); the inputs are multiples of 2^-14 below 2^12
 *     in magnitude, so every such sum is exact in binary64 and so is the butterfly's;
 *   - quantization by srl_mx_quantize (binary64), row by row with the stream at the row's first
 *     draw (NVFP4: the whole operand in one call, so its tensor scale is the operand's; the
 *     cases then have k a multiple of 16 or one row), NVFP4's values divided by s_t;
 *   - the accumulation as the explicit loop of srl_op_apply_draw calls kernels.h defines for
 *     the recursive order (start(0), then add), with every draw at its index; for the other
 *     orders, fma and Kahan, srl_gemm (binary64) on the quantized operands with the stream at
 *     the accumulation's first draw;
 *   - the epilogue S P / G with MPFR: the exact S P, divided by G rounded to nearest at the
 *     accumulator's precision (normal range; every case stays there).
 * Cases: every block format, mixed formats, the three scale rules, rn / sr / sr:r=3 per operand,
 * no rotation, rht and hadamard with g = 2 .. 64, partial blocks and unrotated tails, three
 * layouts, accumulators fp32 / bf16 in rn and sr, pairwise, blocked, fma, Kahan, stochastic
 * products. Then: an MPFR check that the products are exact and the recursive binary32 sum is the
 * exact sum wherever every partial sum is a binary32 number; the stream's counter after each call;
 * NaN propagation; errors (nothing written, rng unchanged); parsing and names. */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/kernels.h"
#include "srlab/mxgemm.h"
#include "srlab/ops.h"

#include "../testutil.h"

#define SEED UINT64_C(0x6d786765)

/* ---- data: multiples of 2^-14 below 2^12 (sums of up to 4096 of them are exact) ---- */

static void fill(float *x, size_t n, srl_rng *g)
{
    for (size_t i = 0; i < n; i++) {
        const int64_t v = (int64_t)srl_rng_below(g, 4095) - 2047;
        const int e = (int)srl_rng_below(g, 9) - 14; /* 2^-14 .. 2^-6 */
        x[i] = (float)ldexp((double)v, e);
        if (srl_rng_below(g, 40) == 0)
            x[i] *= 64; /* an outlier */
        if (srl_rng_below(g, 50) == 0)
            x[i] = 0;
    }
}

/* ---- the reference ---- */

typedef struct refop {
    const float *X;
    size_t rows, rs, cs; /* element (r, l) at X[r rs + l cs] */
    const srl_mxgemm_operand *q;
    uint64_t base;       /* draw of element (0, 0) */
    int e;               /* the rotation's power of two */
} refop;

static void ref_rotate(double *w, const refop *o, size_t r, size_t k, const srl_mxgemm *c,
                       const srl_rng *rng)
{
    double *x = malloc(k * sizeof *x);
    for (size_t l = 0; l < k; l++)
        x[l] = o->X[r * o->rs + l * o->cs];
    const size_t g = (size_t)c->rot_block, full = c->rot ? k / g * g : 0;
    for (size_t l = 0; l < k; l++)
        w[l] = x[l];
    for (size_t b = 0; b < full; b += g)
        for (size_t i = 0; i < g; i++) {
            double s = 0;
            for (size_t j = 0; j < g; j++) {
                double v = x[b + j];
                if (c->rot == SRL_MXGEMM_ROT_RHT) {
                    const uint64_t l = b + j;
                    if (srl_rng_draw_at(rng, rng->counter + l / 64) >> (l % 64) & 1)
                        v = -v;
                }
                s += (__builtin_popcountll(i & j) & 1) ? -v : v;
            }
            w[b + i] = ldexp(s, o->e);
        }
    free(x);
}

/* The quantized operand (rows-by-k) and its tensor scale. */
static int ref_quant(double *q, double *ts, const refop *o, size_t k, const srl_mxgemm *c,
                     const srl_rng *rng)
{
    double *w = malloc(o->rows * k * sizeof *w);
    for (size_t r = 0; r < o->rows; r++)
        ref_rotate(w + r * k, o, r, k, c, rng);
    const bool sto = srl_rounding_is_stochastic(o->q->mode);
    srl_rng g;
    if (rng)
        g = *rng;
    int st = SRL_OK;
    *ts = 1;
    if (o->q->fmt.scale == SRL_MX_E4M3_T32) {
        if (rng)
            srl_rng_seek(&g, o->base);
        st = srl_mx_quantize(q, NULL, ts, w, o->rows * k, &o->q->fmt, o->q->rule, o->q->mode,
                             sto ? &g : NULL);
        for (size_t i = 0; i < o->rows * k; i++)
            q[i] /= *ts; /* e s_b s_t / s_t: exact */
    } else {
        for (size_t r = 0; r < o->rows && !st; r++) {
            if (rng)
                srl_rng_seek(&g, o->base + r * k);
            st = srl_mx_quantize(q + r * k, NULL, NULL, w + r * k, k, &o->q->fmt, o->q->rule,
                                 o->q->mode, sto ? &g : NULL);
        }
    }
    free(w);
    return st;
}

/* One output's recursive sum as kernels.h writes it; base: the output's first draw. */
static double ref_dot(const double *a, const double *b, size_t k, const srl_accum *ac,
                      const srl_rng *rng, uint64_t base)
{
    const bool ps = srl_rounding_is_stochastic(ac->prod_mode);
    const bool as = srl_rounding_is_stochastic(ac->acc_mode);
    const uint64_t P = ps ? k : 0;
    double s = 0;
    for (size_t l = 0; l < k; l++) {
        const uint64_t ip = base + l, ia = base + P + l;
        const uint64_t up = ps ? srl_rng_draw_at(rng, ip) : 0;
        const uint64_t ua = as ? srl_rng_draw_at(rng, ia) : 0;
        const double t = srl_op_apply_draw(SRL_MUL, a[l], b[l], 0, &ac->prod_fmt, ac->prod_mode,
                                           up, rng, ip);
        s = l == 0 ? srl_op_apply_draw(SRL_MUL, t, 1.0, 0, &ac->acc_fmt, ac->acc_mode, ua, rng, ia)
                   : srl_op_apply_draw(SRL_ADD, s, t, 0, &ac->acc_fmt, ac->acc_mode, ua, rng, ia);
    }
    return s;
}

/* S P / G rounded to nearest at precision p (MPFR, exact until the division). */
static double ref_epilogue(double S, double P, double G, int p)
{
    mpfr_t x, y;
    mpfr_inits2(400, x, y, (mpfr_ptr)0);
    mpfr_set_d(x, S, MPFR_RNDN);
    mpfr_mul_d(x, x, P, MPFR_RNDN); /* exact at 400 bits */
    mpfr_set_prec(y, p);
    mpfr_div_d(y, x, G, MPFR_RNDN);
    const double r = mpfr_get_d(y, MPFR_RNDN);
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

/* C by the reference into R (m-by-n, binary64); 0 on success. */
static int reference(double *R, const float *A, const float *B, size_t m, size_t n, size_t k,
                     srl_mxgemm_layout lay, const srl_mxgemm *c, const srl_rng *rng)
{
    const uint64_t c0 = rng ? rng->counter : 0;
    const uint64_t S = c->rot == SRL_MXGEMM_ROT_RHT ? (k + 63) / 64 : 0;
    const uint64_t QA = srl_rounding_is_stochastic(c->a.mode) ? m * k : 0;
    const uint64_t QB = srl_rounding_is_stochastic(c->b.mode) ? n * k : 0;
    const int L = __builtin_ctz((unsigned)c->rot_block), h = L / 2;
    const refop oa = {A, m, lay == SRL_MXGEMM_TN ? 1 : k, lay == SRL_MXGEMM_TN ? m : 1, &c->a,
                      c0 + S, -h};
    const refop ob = {B, n, lay == SRL_MXGEMM_NT ? k : 1, lay == SRL_MXGEMM_NT ? 1 : n, &c->b,
                      c0 + S + QA, -(L - h)};
    double *qa = malloc((m * k + 1) * sizeof *qa), *qb = malloc((n * k + 1) * sizeof *qb);
    double ta, tb;
    int st = ref_quant(qa, &ta, &oa, k, c, rng);
    if (!st)
        st = ref_quant(qb, &tb, &ob, k, c, rng);
    const uint64_t acc0 = c0 + S + QA + QB;
    const srl_accum *ac = &c->accum;
    if (!st && ac->order == SRL_ORDER_RECURSIVE && !ac->fma && !ac->kahan) {
        const uint64_t D = srl_dot_draws(k, ac);
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                R[i * n + j] = ref_dot(qa + i * k, qb + j * k, k, ac, rng, acc0 + (i * n + j) * D);
    } else if (!st) {
        double *bk = malloc((n * k + 1) * sizeof *bk);
        for (size_t l = 0; l < k; l++)
            for (size_t j = 0; j < n; j++)
                bk[l * n + j] = qb[j * k + l];
        srl_rng g;
        if (rng) {
            g = *rng;
            srl_rng_seek(&g, acc0);
        }
        st = srl_gemm(R, qa, bk, m, n, k, ac, rng ? &g : NULL);
        free(bk);
    }
    const double P = ta * tb, G = srl_mx_gain(&c->a.fmt, c->a.rule) *
                                  srl_mx_gain(&c->b.fmt, c->b.rule);
    if (!st && (P != 1 || G != 1))
        for (size_t i = 0; i < m * n; i++)
            R[i] = ref_epilogue(R[i], P, G, ac->acc_fmt.p);
    free(qa);
    free(qb);
    return st;
}

/* ---- the cases ---- */

static const char *const specs[] = {
    "fmt=mxfp8",
    "fmt=mxfp8,round=sr",
    "fmt=mxfp8-e5m2,round=sr:r=3,scale=ceil",
    "fmt=mxfp6,a-round=sr,scale=3/4",
    "fmt=mxfp6-e2m3,b-round=sr,rot=hadamard,rot-block=16",
    "fmt=mxfp4,round=sr,scale=3/4,rot=rht,rot-block=32",
    "fmt=mxfp4,rot=hadamard,rot-block=64",
    "fmt=mxfp4,round=sr,rot=rht,rot-block=2,acc=fp32:sr",
    "fmt=mxint8,round=sr,acc=bf16:rn,prod=fp32:rn",
    "fmt=nvfp4,round=sr",
    "fmt=nvfp4,scale=3/4,rot=rht,rot-block=16,round=sr:r=3",
    "a-fmt=nvfp4,b-fmt=mxfp4,b-scale=3/4,round=sr",
    "a-fmt=mxfp8,b-fmt=mxfp4,scale=3/4,round=sr,rot=rht",
    "fmt=mxfp4,block=16,round=sr,order=pairwise",
    "fmt=mxfp4,block=24,round=sr,acc=fp32:sr,order=blocked:8",
    "fmt=mxfp8,round=sr,fma=on,acc=fp32:sr",
    "fmt=mxfp4,round=sr,kahan=on,acc=bf16:rn",
    "fmt=mxfp4,round=sr,prod=bf16:sr,acc=fp32:rn",
    "fmt=mxfp6,scale=ceil,round=sr,rot=rht,rot-block=4,acc=bf16:sr",
};
#define NSPECS (sizeof specs / sizeof specs[0])

static const size_t sizes[][3] = {{3, 5, 64}, {4, 3, 70}, {1, 1, 1}, {2, 7, 33},
                                  {5, 4, 128}, {2, 3, 96}, {1, 6, 40}};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static bool has_nv(const srl_mxgemm *c)
{
    return c->a.fmt.scale == SRL_MX_E4M3_T32 || c->b.fmt.scale == SRL_MX_E4M3_T32;
}

static void run_case(const char *spec, size_t m, size_t n, size_t k, srl_mxgemm_layout lay,
                     uint64_t seed, long *compared)
{
    srl_mxgemm c = srl_mxgemm_default();
    srl_err err = {0};
    if (srl_mxgemm_parse(&c, spec, &err) != SRL_OK) {
        CHECK(0, "parse '%s': %s", spec, err.msg);
        return;
    }
    if (has_nv(&c) && k % 16 && !(m == 1 && n == 1))
        return; /* the reference quantizes NVFP4 operands flat (see the file comment) */
    float *A = malloc(m * k * sizeof *A), *B = malloc(k * n * sizeof *B),
          *C = malloc(m * n * sizeof *C);
    double *R = malloc(m * n * sizeof *R);
    srl_rng d;
    srl_rng_init(&d, SRL_RNG_PCG64, seed, 1);
    fill(A, m * k, &d);
    fill(B, k * n, &d);
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_DEFAULT, seed, 7);
    srl_rng_seek(&g, 12345);
    const srl_rng g0 = g;
    const int st = srl_mxgemm_f(C, A, B, m, n, k, lay, &c, &g);
    CHECK(st == SRL_OK, "%s: status %d", spec, st);
    CHECK(g.counter == g0.counter + srl_mxgemm_draws(m, n, k, &c),
          "%s (%zu,%zu,%zu): counter %llu, expected %llu", spec, m, n, k,
          (unsigned long long)g.counter,
          (unsigned long long)(g0.counter + srl_mxgemm_draws(m, n, k, &c)));
    CHECK(reference(R, A, B, m, n, k, lay, &c, &g0) == SRL_OK, "%s: reference failed", spec);
    long bad = 0;
    for (size_t i = 0; i < m * n; i++) {
        if (!srl_test_same((double)C[i], R[i]) && bad++ < 3)
            CHECK(0, "%s layout %d (%zu,%zu,%zu) seed %llu: C[%zu] = %a, reference %a", spec,
                  (int)lay, m, n, k, (unsigned long long)seed, i, (double)C[i], R[i]);
        ++*compared;
    }
    free(A), free(B), free(C), free(R);
}

static void test_cases(void)
{
    const long before = srl_test_failures;
    long compared = 0;
    for (size_t s = 0; s < NSPECS; s++)
        for (size_t z = 0; z < NSIZES; z++)
            for (int lay = 0; lay < 3; lay++)
                run_case(specs[s], sizes[z][0], sizes[z][1], sizes[z][2], (srl_mxgemm_layout)lay,
                         SEED + 100 * s + 10 * z + (uint64_t)lay, &compared);
    /* one product large enough to fork the rows and the engine */
    run_case("fmt=mxfp4,round=sr,scale=3/4,rot=rht,acc=fp32:sr", 96, 40, 448, SRL_MXGEMM_NT,
             SEED, &compared);
    run_case("fmt=mxfp8,round=sr", 96, 40, 448, SRL_MXGEMM_TN, SEED + 1, &compared);
    CHECK(compared > 5000, "only %ld outputs compared", compared);
    printf("  %ld outputs compared\n", compared);
    GROUP("block GEMM = the reference, bit for bit (formats, rules, modes, rotations, layouts, "
          "accumulators)", before);
}

/* Whether x is a binary32 number (t: workspace). */
static bool is_flt(mpfr_srcptr x, mpfr_ptr t)
{
    mpfr_set_flt(t, mpfr_get_flt(x, MPFR_RNDN), MPFR_RNDN);
    return mpfr_equal_p(x, t) != 0;
}

/* Products exact and the recursive binary32 sum exact wherever every partial sum is a binary32
 * number: C = the exact sum of the exact products of the quantized values (MPFR). */
static void test_exact(void)
{
    const long before = srl_test_failures;
    long checked = 0;
    mpfr_t s, p, t;
    mpfr_inits2(600, s, p, t, (mpfr_ptr)0);
    static const char *const sp[] = {"fmt=mxfp8,round=sr", "fmt=mxfp4,round=sr,rot=rht",
                                     "fmt=mxint8,round=sr", "fmt=nvfp4,round=sr"};
    for (int si = 0; si < 4; si++) {
        srl_mxgemm c = srl_mxgemm_default();
        if (srl_mxgemm_parse(&c, sp[si], NULL) != SRL_OK) {
            CHECK(0, "parse %s", sp[si]);
            continue;
        }
        const size_t m = 6, n = 5, k = 32;
        float A[6 * 32], B[32 * 5], C[30];
        srl_rng d, g;
        srl_rng_init(&d, SRL_RNG_PCG64, SEED + (uint64_t)si, 3);
        for (size_t i = 0; i < m * k; i++)
            A[i] = (float)(1 + srl_rng_below(&d, 8)) / 8; /* narrow: partial sums stay exact */
        for (size_t i = 0; i < k * n; i++)
            B[i] = (float)(1 + srl_rng_below(&d, 8)) / 4 * (i % 3 ? 1 : -1);
        srl_rng_init(&g, SRL_RNG_DEFAULT, SEED, 9);
        const srl_rng g0 = g;
        if (srl_mxgemm_f(C, A, B, m, n, k, SRL_MXGEMM_NN, &c, &g) != SRL_OK) {
            CHECK(0, "%s failed", sp[si]);
            continue;
        }
        /* the quantized operands by the reference, then the exact sums */
        const int L = __builtin_ctz((unsigned)c.rot_block), h = L / 2;
        const uint64_t S = c.rot == SRL_MXGEMM_ROT_RHT ? 1 : 0;
        const refop oa = {A, m, k, 1, &c.a, g0.counter + S, -h};
        const refop ob = {B, n, 1, n, &c.b, g0.counter + S + m * k, -(L - h)};
        double qa[6 * 32], qb[5 * 32], ta, tb;
        if (ref_quant(qa, &ta, &oa, k, &c, &g0) || ref_quant(qb, &tb, &ob, k, &c, &g0)) {
            CHECK(0, "reference quantization failed");
            continue;
        }
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                bool exact = true;
                mpfr_set_zero(s, 1);
                for (size_t l = 0; l < k; l++) {
                    mpfr_set_d(p, qa[i * k + l], MPFR_RNDN);
                    mpfr_mul_d(p, p, qb[j * k + l], MPFR_RNDN); /* exact at 600 bits */
                    mpfr_add(s, s, p, MPFR_RNDN);
                    exact &= is_flt(s, t);
                }
                mpfr_mul_d(s, s, ta * tb, MPFR_RNDN);
                if (!exact || !is_flt(s, t))
                    continue;
                checked++;
                CHECK(mpfr_cmp_d(s, (double)C[i * n + j]) == 0, "%s: C[%zu,%zu] = %a, exact %a",
                      sp[si], i, j, (double)C[i * n + j], mpfr_get_d(s, MPFR_RNDN));
            }
    }
    mpfr_clears(s, p, t, (mpfr_ptr)0);
    CHECK(checked >= 60, "only %ld outputs had exact partial sums", checked);
    printf("  %ld outputs equal to the exact sum\n", checked);
    GROUP("exact products and sums (MPFR)", before);
}

/* A NaN input makes its row's (A) or column's (B) outputs NaN; the others stay finite. */
static void test_nan(void)
{
    const long before = srl_test_failures;
    const size_t m = 3, n = 4, k = 64;
    float A[3 * 64], B[64 * 4], C[12];
    srl_rng d, g;
    srl_rng_init(&d, SRL_RNG_PCG64, SEED, 4);
    fill(A, m * k, &d);
    fill(B, k * n, &d);
    A[1 * k + 5] = NAN;
    static const char *const sp[] = {"fmt=mxfp4,round=sr", "fmt=mxfp4,round=sr,rot=rht",
                                     "fmt=nvfp4"};
    for (int si = 0; si < 3; si++) {
        srl_mxgemm c = srl_mxgemm_default();
        srl_rng_init(&g, SRL_RNG_DEFAULT, SEED, 5);
        if (srl_mxgemm_parse(&c, sp[si], NULL) || srl_mxgemm_f(C, A, B, m, n, k, SRL_MXGEMM_NN,
                                                                 &c, &g)) {
            CHECK(0, "%s failed", sp[si]);
            continue;
        }
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                CHECK((i == 1) == (C[i * n + j] != C[i * n + j]), "%s: C[%zu,%zu] = %g", sp[si],
                      i, j, (double)C[i * n + j]);
    }
    GROUP("NaN inputs", before);
}

static void test_errors(void)
{
    const long before = srl_test_failures;
    float A[8] = {1, 2, 3, 4, 5, 6, 7, 8}, B[8] = {1, 1, 1, 1, 1, 1, 1, 1}, C[4] = {7, 7, 7, 7};
    srl_mxgemm c = srl_mxgemm_default();
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_DEFAULT, 1, 2);
    const uint64_t c0 = g.counter;
    CHECK(srl_mxgemm_parse(&c, "round=sr", NULL) == SRL_OK, "round=sr");
    CHECK(srl_mxgemm_f(C, A, B, 2, 2, 4, SRL_MXGEMM_NN, &c, NULL) == SRL_EINVAL, "NULL rng");
    srl_mxgemm bad = c;
    bad.rot_block = 24;
    CHECK(srl_mxgemm_f(C, A, B, 2, 2, 4, SRL_MXGEMM_NN, &bad, &g) == SRL_EINVAL, "rot-block 24");
    bad = c;
    bad.accum.acc_fmt = *srl_format_find("fp64");
    CHECK(srl_mxgemm_f(C, A, B, 2, 2, 4, SRL_MXGEMM_NN, &bad, &g) == SRL_EINVAL, "acc fp64");
    bad = c;
    bad.a.fmt.block = 0;
    CHECK(srl_mxgemm_f(C, A, B, 2, 2, 4, SRL_MXGEMM_NN, &bad, &g) == SRL_EINVAL, "block 0");
    CHECK(srl_mxgemm_f(C, NULL, B, 2, 2, 4, SRL_MXGEMM_NN, &c, &g) == SRL_EINVAL, "NULL A");
    CHECK(srl_mxgemm_f(C, A, B, 2, 2, 4, (srl_mxgemm_layout)3, &c, &g) == SRL_EINVAL, "layout");
    CHECK(g.counter == c0 && C[0] == 7 && C[3] == 7, "an error wrote or drew");
    /* deterministic: no rng needed; empty products */
    srl_mxgemm rn = srl_mxgemm_default();
    CHECK(srl_mxgemm_f(C, A, B, 2, 2, 4, SRL_MXGEMM_NN, &rn, NULL) == SRL_OK, "rn without rng");
    CHECK(srl_mxgemm_f(C, A, B, 2, 2, 0, SRL_MXGEMM_NN, &rn, NULL) == SRL_OK && C[0] == 0 &&
              !signbit(C[0]), "k = 0 gives +0");
    CHECK(srl_mxgemm_draws(2, 3, 100, &c) == 2 * 100 + 3 * 100, "draws");
    c.rot = SRL_MXGEMM_ROT_RHT;
    CHECK(srl_mxgemm_draws(2, 3, 100, &c) == 2 + 2 * 100 + 3 * 100, "draws with rht");
    CHECK(srl_mxgemm_draws(SIZE_MAX, SIZE_MAX, 2, &c) == UINT64_MAX, "draws saturate");
    GROUP("errors, draws", before);
}

static void test_parse(void)
{
    const long before = srl_test_failures;
    static const char *const good[] = {
        "fmt=mxfp4,round=sr,scale=3/4,rot=rht,rot-block=64,acc=fp32:sr",
        "a-fmt=nvfp4,b-fmt=mxfp8-e5m2,a-round=sr:r=5,b-scale=ceil,order=blocked:16",
        "fmt=mxfp6,block=16,prod=(p=9,emax=127):rn,acc=bf16:rn,kahan=on",
        "rot=hadamard",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        srl_mxgemm c = srl_mxgemm_default(), d = srl_mxgemm_default();
        srl_err err = {0};
        char n1[512], n2[512];
        CHECK(srl_mxgemm_parse(&c, good[i], &err) == SRL_OK, "'%s': %s", good[i], err.msg);
        srl_mxgemm_name(n1, sizeof n1, &c);
        CHECK(srl_mxgemm_parse(&d, n1, &err) == SRL_OK, "name '%s' does not parse: %s", n1,
              err.msg);
        srl_mxgemm_name(n2, sizeof n2, &d);
        CHECK(!strcmp(n1, n2), "'%s' -> '%s' -> '%s'", good[i], n1, n2);
    }
    srl_mxgemm c = srl_mxgemm_default();
    CHECK(srl_mxgemm_parse(&c, "fmt=mxfp4,rot=rht", NULL) == SRL_OK &&
              c.a.fmt.elem.p == 2 && c.b.fmt.elem.p == 2 && c.rot == SRL_MXGEMM_ROT_RHT,
          "fmt= sets both");
    CHECK(srl_mxgemm_parse(&c, "b-round=sr", NULL) == SRL_OK &&
              !srl_rounding_is_stochastic(c.a.mode) && srl_rounding_is_stochastic(c.b.mode),
          "b-round= sets b");
    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"fmt=mxfp5", "mxfp5"},
        {"fmt=mxfp4,block=16x", "block"},
        {"fmt=mxfp4,block=16,rot-block=24", "rot-block=24"},
        {"rot=spin", "rot=spin"},
        {"colour=red", "colour"},
        {"a-colour=red", "a-colour"},
        {"scale=half", "half"},
        {"round=sr:r=0", "sr"},
        {"acc=fp64:rn", "binary32"},
        {"fmt=mxfp4,", "trailing comma"},
        {"fmt", "KEY=VALUE"},
        {"fmt=mxfp4,block=16", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        srl_mxgemm t = srl_mxgemm_default(), keep = t;
        srl_err err = {0};
        const int st = srl_mxgemm_parse(&t, bad[i].spec, &err);
        if (!bad[i].needle) {
            CHECK(st == SRL_OK && t.a.fmt.block == 16 && t.b.fmt.block == 16, "'%s'",
                  bad[i].spec);
            continue;
        }
        CHECK(st != SRL_OK && strstr(err.msg, bad[i].needle), "'%s': status %d, message '%s'",
              bad[i].spec, st, err.msg);
        CHECK(!memcmp(&t, &keep, sizeof t), "'%s' changed the config", bad[i].spec);
    }
    GROUP("parse and name", before);
}

int main(void)
{
    test_cases();
    test_exact();
    test_nan();
    test_errors();
    test_parse();
    TEST_END();
}
