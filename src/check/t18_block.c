/* src/check/t18_block.c: the checks of theory/T18-block-scaled-sr.md: stochastic rounding with a
 * shared block scale (srlab/mx.h).
 *
 *   T18a  SR is unbiased given the scale: E[Q(x)] = x for every element that does not clip
 *   T18b  the OCP scale rule clips: an element above xmax 2^k always gives xmax 2^k, a bias of
 *         xmax 2^k - x exactly
 *   T18c  the 3/4 rule removes it: E[(4/3) Q(3x/4)] = x for the same element
 *   T18d  the variance of a block-quantized dot product, sum_i b_i Q(a_i) with exact b, is
 *         sum_i b_i^2 (a_i - RD a_i)(RU a_i - a_i) given the scales (independent draws)
 *
 * Each experiment quantizes one fixed array (a block, or two for T18d) replicated N times in one
 * call of srl_mx_quantize (mxfp4, sr), so each copy has its own draws (the array rule of
 * srlab/mx.h: element i uses draw i) and the result cannot depend on the thread count. The
 * mutations are check-level (which rule, mode or prediction the experiment uses); a library-level
 * switch for the scale rule would sit in src/round/mx_scale.h (srl__mx_k), where the one rule is
 * written. */
#include "check/check_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "srlab/mx.h"

#define Z99 2.3263478740408408 /* the one-sided 0.99 normal quantile: the MDE's power */
#define T18_BS 32

/* The fixed block: amax = A 2^k0 with k0 = 0 under the OCP rule (4 <= A < 8), the other 31
 * elements from stream 0 of seed 0 in (0, 4), signs alternating, each a binary64 number with at
 * most 20 bits (so every error below is exact). */
static void t18_block(double *x, double A)
{
    srl_rng d;
    srl_rng_init(&d, SRL_RNG_DEFAULT, 0, 0);
    x[0] = A;
    for (int i = 1; i < T18_BS; i++)
        x[i] = (double)(1 + srl_rng_below(&d, 4095)) / 1024 * ((i & 1) ? -1 : 1);
}

/* Quantize `copies` copies of x[0..n) in one call (seed `seed`), into y. */
static int t18_quantize(double *y, const double *x, size_t n, uint64_t copies, srl_mx_rule r,
                        const char *mode, uint64_t seed, srl_err *err)
{
    srl_mx_format f;
    srl_rounding m;
    int st = srl_mx_parse(&f, "mxfp4", err);
    if (!st)
        st = srl_rounding_parse(&m, mode, err);
    if (st)
        return st;
    double *xs = malloc(n * copies * sizeof *xs);
    if (!xs)
        return srl_err_set(err, SRL_ENOMEM, "T18: out of memory");
    for (uint64_t c = 0; c < copies; c++)
        for (size_t i = 0; i < n; i++)
            xs[c * n + i] = x[i];
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_DEFAULT, seed, 18);
    st = srl_mx_quantize(y, NULL, NULL, xs, n * copies, &f, r, m, &g);
    free(xs);
    return st ? srl_err_set(err, st, "T18: srl_mx_quantize failed") : SRL_OK;
}

/* The mean of v[0..N), its Student t interval at SRL_CHECK_ALPHA and the MDE (t + z) se. */
typedef struct t18_stat {
    double mean, lo, hi, mde;
} t18_stat;

static t18_stat t18_interval(const double *v, uint64_t N)
{
    double mean, var;
    srl__chk_mean_var(&mean, &var, v, N);
    const double se = sqrt(var / (double)N), t = srl__chk_t(SRL_CHECK_ALPHA, (double)N - 1);
    return (t18_stat){mean, mean - t * se, mean + t * se, (t + Z99) * se};
}

/* T18a: the signed error of the 31 non-clipping elements in units of their spacing, pooled over
 * the copies (each copy's mean over the elements is one sample). */
int srl__chk_t18_unbiased(srl_check_result *out, const srl__chk_row *row,
                          const srl_check_opts *o, srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 1 << 13, 1 << 16);
    double x[T18_BS];
    t18_block(x, 5.25); /* no element clips: 5.25 <= 6 */
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    double *y = malloc(N * T18_BS * sizeof *y), *v = malloc(N * sizeof *v);
    int st = y && v ? SRL_OK : srl_err_set(err, SRL_ENOMEM, "T18: out of memory");
    if (!st)
        st = t18_quantize(y, x, T18_BS, N, SRL_MX_OCP, mut ? "sr:r=1" : "sr", 1, err);
    if (!st) {
        for (uint64_t c = 0; c < N; c++) {
            double s = 0;
            for (int i = 1; i < T18_BS; i++) { /* spacing at |x| on E2M1's grid, k = 0 */
                const double q = fabs(x[i]) < 1 ? 0.5 : ldexp(0.5, ilogb(x[i]));
                s += (y[c * T18_BS + i] - x[i]) / q * (x[i] > 0 ? 1 : -1);
            }
            v[c] = s / (T18_BS - 1);
        }
        const t18_stat z = t18_interval(v, N);
        srl__chk_result_begin(out, row->check.id,
                              "mean sign(x) (Q(x) - x) / spacing over the 31 elements below xmax "
                              "2^k of an mxfp4 block (k = 0, amax 5.25), sr, ocp rule, %llu "
                              "copies; predicted 0; MDE %.2g spacings",
                              (unsigned long long)N, z.mde);
        srl__chk_result_set(out, SRL_CHECK_INTERVAL, z.mean, z.lo, z.hi, 0.0);
    }
    free(y);
    free(v);
    return st;
}

/* T18b (OCP: the clipping bias, exact) and T18c (3/4: unbiased) on the block with amax 7.5. */
int srl__chk_t18_clip(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const bool three4 = row->params.pairwise; /* (the row's flag: T18c) */
    const uint64_t N = srl__chk_seeds(o, 1 << 13, 1 << 16);
    double x[T18_BS];
    t18_block(x, 7.5); /* k = floor(log2 7.5) - 2 = 0: 7.5 lies in (6, 8), it clips */
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    /* the experiment mutations: T18b with the ceil rule (nothing clips), T18c with ocp */
    const srl_mx_rule r = three4 ? (mut ? SRL_MX_OCP : SRL_MX_34) : (mut ? SRL_MX_CEIL : SRL_MX_OCP);
    double *y = malloc(N * T18_BS * sizeof *y), *v = malloc(N * sizeof *v);
    int st = y && v ? SRL_OK : srl_err_set(err, SRL_ENOMEM, "T18: out of memory");
    if (!st)
        st = t18_quantize(y, x, T18_BS, N, r, "sr", 2 + three4, err);
    if (!st) {
        /* the estimate of x: Q (ocp, ceil) or Q / (3/4) (exact: Q has 2 bits) */
        const double gain = r == SRL_MX_34 ? 0.75 : 1.0;
        for (uint64_t c = 0; c < N; c++)
            v[c] = y[c * T18_BS] / gain - x[0];
        const double clip = 6.0 - 7.5; /* xmax 2^k - x */
        if (three4) {
            const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? clip : 0.0;
            const t18_stat z = t18_interval(v, N);
            srl__chk_result_begin(out, row->check.id,
                                  "mean (4/3) Q(3x/4) - x for the element x = 7.5 (amax) of an "
                                  "mxfp4 block, sr, 3/4 rule, %llu copies; predicted 0 (the ocp "
                                  "rule gives %.2g); MDE %.2g",
                                  (unsigned long long)N, clip, z.mde);
            srl__chk_result_set(out, SRL_CHECK_INTERVAL, z.mean, z.lo, z.hi, pred);
        } else {
            double mean, var;
            srl__chk_mean_var(&mean, &var, v, N);
            const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? 0.0 : clip;
            srl__chk_result_begin(out, row->check.id,
                                  "mean Q(x) - x for the element x = 7.5 (amax) of an mxfp4 block, "
                                  "sr, ocp rule (k = 0), %llu copies, sample variance %.3g; "
                                  "predicted xmax 2^k - x = 6 - 7.5 exactly (every draw clips)",
                                  (unsigned long long)N, var);
            srl__chk_result_set(out, SRL_CHECK_EXACT, mean, mean, mean, pred);
        }
    }
    free(y);
    free(v);
    return st;
}

/* T18d: the mean square error of s = sum_i b_i Q(a_i) over two blocks against the predicted
 * variance sum_i b_i^2 (a_i - RD)(RU - a_i), the neighbours from srl_mx_explain. */
int srl__chk_t18_dot_var(srl_check_result *out, const srl__chk_row *row,
                         const srl_check_opts *o, srl_err *err)
{
    enum { K = 2 * T18_BS };
    const uint64_t N = srl__chk_seeds(o, 1 << 13, 1 << 16);
    double a[K], b[K];
    t18_block(a, 5.25);
    t18_block(a + T18_BS, 4.5);
    srl_rng d;
    srl_rng_init(&d, SRL_RNG_DEFAULT, 0, 1);
    double S = 0, V = 0, Vmax = 0;
    for (int i = 0; i < K; i++) {
        b[i] = (double)((int64_t)srl_rng_below(&d, 64) - 32) / 16; /* exact products */
        S += a[i] * b[i];
    }
    srl_mx_format f;
    int st = srl_mx_parse(&f, "mxfp4", err);
    for (int blk = 0; !st && blk < 2; blk++) {
        srl_mx_scale s;
        srl_round_info in[T18_BS];
        srl_rng g;
        srl_rng_init(&g, SRL_RNG_DEFAULT, 9, 9);
        st = srl_mx_explain(&s, in, a + blk * T18_BS, T18_BS, 1.0, &f, SRL_MX_OCP,
                            SRL_ROUND_SR, &g);
        for (int i = 0; !st && i < T18_BS; i++) {
            const double bi = b[blk * T18_BS + i], ai = a[blk * T18_BS + i];
            V += bi * bi * (ai - in[i].rd) * (in[i].ru - ai);
            Vmax += bi * bi * (in[i].ru - in[i].rd) * (in[i].ru - in[i].rd) / 4;
        }
    }
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    double *y = malloc(N * K * sizeof *y), *v = malloc(N * sizeof *v);
    if (!st && !(y && v))
        st = srl_err_set(err, SRL_ENOMEM, "T18: out of memory");
    if (!st)
        st = t18_quantize(y, a, K, N, SRL_MX_OCP, mut ? "sr-eq" : "sr", 4, err);
    if (!st) {
        for (uint64_t c = 0; c < N; c++) {
            double s = 0;
            for (int i = 0; i < K; i++)
                s += y[c * K + i] * b[i]; /* exact: few-bit terms */
            v[c] = (s - S) * (s - S);
        }
        const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? Vmax : V;
        const t18_stat z = t18_interval(v, N);
        srl__chk_result_begin(out, row->check.id,
                              "E (s - a.b)^2 of s = sum b_i Q(a_i), a two mxfp4 blocks (sr, ocp), "
                              "b exact, %llu copies; predicted sum b_i^2 (a_i - RD)(RU - a_i) = "
                              "%.4g (worst case q^2/4: %.4g); MDE %.2g (%.0f%%)",
                              (unsigned long long)N, V, Vmax, z.mde, 100 * z.mde / V);
        srl__chk_result_set(out, SRL_CHECK_INTERVAL, z.mean, z.lo, z.hi, pred);
    }
    free(y);
    free(v);
    return st;
}
