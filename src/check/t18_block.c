/* src/check/t18_block.c: the checks of theory/T18-block-scaled-sr.md: stochastic rounding with a
 * shared block scale (srlab/mx.h).
 *
 *   T18a  SR is unbiased given the scale: E[Q(x)] = x for every element that does not clip
 *   T18b  the OCP scale rule clips: an element above xmax 2^k always gives xmax 2^k, a bias of
 *         xmax 2^k - x exactly
 *   T18c  the 3/4 rule removes it: E[(4/3) Q(3x/4)] = x for the same element
 *   T18d  the variance of a block-quantized dot product, sum_i b_i Q(a_i) with exact b, is
 *         sum_i b_i^2 (a_i - RD a_i)(RU a_i - a_i) given the scales (independent draws)
 *   T18e  the RHT bounds that variance by (4/9) 2^-2m (2 ln 2g + 2)/g ||a||^2 ||b||^2, on the
 *         input where the fixed Hadamard is at its worst
 *   T18f  on inputs with independent symmetric signs the fixed Hadamard's SR error has the RHT's
 *   T18g  on those inputs the fixed Hadamard with rn beats the RHT with sr in mean square
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
#include <string.h>

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

/* ---- T18e-g: rotations of the reduction dimension (theory/T18, statements 5-7) ----
 *
 * One rotation block of g = 256 positions (8 mxfp4 blocks of 32): a is quantized after the
 * orthonormal rotation y = 2^-4 H D a (H the Sylvester Hadamard matrix of order 256, D = diag of
 * random signs for rht, I for hadamard, no rotation for none), b is rotated the same way and kept
 * exact, and the error of one copy is e = sum_i yb_i Q(ya_i) / gain - a.b. Every input is a
 * binary64 number of at most 11 significant bits within 2^-10 .. 2, so the butterflies are exact
 * and so is every product below; the sums are binary64 (relative error 2^-45 at most, far below
 * the quantization errors measured). Copies are quantized T18R_CHUNK at a time in one call of
 * srl_mx_quantize, the generator running on across calls: element l of copy c uses draw
 * c 256 + l of the config's stream whatever the chunking. */
#define T18R_G 256
#define T18R_CHUNK 512
#define T18R_SPIKE_J 37 /* the aligned input's column of H */

typedef enum t18r_rot { T18R_NONE, T18R_RHT, T18R_HAD } t18r_rot;

typedef struct t18r_cfg {
    t18r_rot rot;
    srl_rounding mode; /* SRL_ROUND_SR or SRL_ROUND_RN */
    srl_mx_rule rule;
} t18r_cfg;

/* y = 2^-4 H (s .* x) in place (s NULL: no signs), by the 8 butterfly stages. */
static void t18r_rotate(double *x, const double *s)
{
    if (s)
        for (int i = 0; i < T18R_G; i++)
            x[i] *= s[i];
    for (int h = 1; h < T18R_G; h *= 2)
        for (int i = 0; i < T18R_G; i += 2 * h)
            for (int j = i; j < i + h; j++) {
                const double u = x[j], v = x[j + h];
                x[j] = u + v;
                x[j + h] = u - v;
            }
    for (int i = 0; i < T18R_G; i++)
        x[i] *= 0x1p-4;
}

/* Copy c's input. aligned: a = (6.5/16) h_j and b = h_j / 16 with h_j column j of H, so that
 * the fixed Hadamard maps a to the single value 6.5 and b to 1 at position j (a.b = 6.5).
 * Otherwise (generic): independent signs, magnitudes (1 + u/1024) 2^-e (a, e in 0..7) and
 * (1 + u/64) 2^-e / 4 (b, e in 0..3): blocks with outliers up to 2^7 times their smallest
 * element, the signs symmetric and independent of the magnitudes. */
static void t18r_input(double *a, double *b, bool aligned, srl_rng *d)
{
    for (int i = 0; i < T18R_G; i++) {
        if (aligned) {
            const double h = (__builtin_popcount((unsigned)(i & T18R_SPIKE_J)) & 1) ? -1 : 1;
            a[i] = 6.5 / 16 * h;
            b[i] = h / 16;
        } else {
            const uint64_t r = srl_rng_next(d);
            a[i] = ldexp(1 + (double)(r & 1023) / 1024, -(int)((r >> 10) & 7)) *
                   ((r >> 13) & 1 ? -1 : 1);
            b[i] = ldexp(1 + (double)((r >> 14) & 63) / 64, -2 - (int)((r >> 20) & 3)) *
                   ((r >> 22) & 1 ? -1 : 1);
        }
    }
}

/* e2[k N + c]: the squared error of copy c under config k (ncfg configs on the same inputs,
 * each with its own signs and draws: stream 180 + k of seed `seed`; inputs from stream 179). */
static int t18r_run(double *e2, const t18r_cfg *cfg, int ncfg, bool aligned, uint64_t N,
                    uint64_t seed, srl_err *err)
{
    srl_mx_format f;
    int st = srl_mx_parse(&f, "mxfp4", err);
    if (st)
        return st;
    const size_t G = T18R_G, C = T18R_CHUNK;
    double *a = malloc(C * G * sizeof *a), *b = malloc(C * G * sizeof *b),
           *ya = malloc(C * G * sizeof *ya), *yb = malloc(C * G * sizeof *yb),
           *ab = malloc(C * sizeof *ab), *s = malloc(G * sizeof *s);
    srl_rng gen[8], sg[8], d;
    if (!(a && b && ya && yb && ab && s) || ncfg > 8)
        st = srl_err_set(err, SRL_ENOMEM, "T18: out of memory");
    srl_rng_init(&d, SRL_RNG_DEFAULT, seed, 179);
    for (int k = 0; k < ncfg; k++) {
        srl_rng_init(&gen[k], SRL_RNG_DEFAULT, seed, 180 + (uint64_t)k);
        srl_rng_init(&sg[k], SRL_RNG_DEFAULT, seed, 190 + (uint64_t)k);
    }
    for (uint64_t c0 = 0; !st && c0 < N; c0 += C) {
        const size_t nc = N - c0 < C ? (size_t)(N - c0) : C;
        for (size_t c = 0; c < nc; c++) {
            t18r_input(a + c * G, b + c * G, aligned, &d);
            double p = 0;
            for (size_t i = 0; i < G; i++)
                p += a[c * G + i] * b[c * G + i];
            ab[c] = p;
        }
        for (int k = 0; !st && k < ncfg; k++) {
            for (size_t c = 0; c < nc; c++) {
                memcpy(ya + c * G, a + c * G, G * sizeof *ya);
                memcpy(yb + c * G, b + c * G, G * sizeof *yb);
                if (cfg[k].rot == T18R_NONE)
                    continue;
                if (cfg[k].rot == T18R_RHT)
                    for (size_t i = 0; i < G; i += 64) {
                        const uint64_t w = srl_rng_next(&sg[k]);
                        for (size_t l = 0; l < 64; l++)
                            s[i + l] = (w >> l) & 1 ? -1 : 1;
                    }
                t18r_rotate(ya + c * G, cfg[k].rot == T18R_RHT ? s : NULL);
                t18r_rotate(yb + c * G, cfg[k].rot == T18R_RHT ? s : NULL);
            }
            st = srl_mx_quantize(ya, NULL, NULL, ya, nc * G, &f, cfg[k].rule, cfg[k].mode,
                                 &gen[k]);
            if (st) {
                st = srl_err_set(err, st, "T18: srl_mx_quantize failed");
                break;
            }
            const double gain = srl_mx_gain(&f, cfg[k].rule);
            for (size_t c = 0; c < nc; c++) {
                double q = 0;
                for (size_t i = 0; i < G; i++)
                    q += yb[c * G + i] * ya[c * G + i];
                const double e = q / gain - ab[c];
                e2[(size_t)k * N + c0 + c] = e * e;
            }
        }
    }
    free(a);
    free(b);
    free(ya);
    free(yb);
    free(ab);
    free(s);
    return st;
}

/* The expectation over the signs of the rotated block's largest square, as a multiple of
 * ||a||^2: (2 ln(2g) + 2) / g (theory/T18, derivation 5). */
static double t18r_max2(double g)
{
    return (2 * log(2 * g) + 2) / g;
}

/* T18e: the RHT's bound on the aligned input (the worst case for the fixed Hadamard). */
int srl__chk_t18_rht_bound(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 1 << 12, 1 << 15);
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    const t18r_cfg cfg = {mut ? T18R_HAD : T18R_RHT, SRL_ROUND_SR, SRL_MX_34};
    double *e2 = malloc(N * sizeof *e2);
    int st = e2 ? t18r_run(e2, &cfg, 1, true, N, 5, err)
                : srl_err_set(err, SRL_ENOMEM, "T18: out of memory");
    if (!st) {
        /* (4/9) 2^-2m E||y||_inf^2 ||b||^2 with m = 1 (E2M1), ||a||^2 = 6.5^2, ||b||^2 = 1 */
        const double a2 = 6.5 * 6.5, B = 4.0 / 9 / 4 * t18r_max2(T18R_G) * a2;
        const double Bnolog = 4.0 / 9 / 4 * 2.0 / T18R_G * a2;
        const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? Bnolog : B;
        const t18_stat z = t18_interval(e2, N);
        srl__chk_result_begin(out, row->check.id,
                              "E (s - a.b)^2, s = sum_i yb_i (4/3) Q(ya_i), a and b rotated "
                              "by the RHT in one block of 256 (signs per copy), a quantized "
                              "to mxfp4 (sr, 3/4 rule), a = (6.5/16) h_37, b = h_37/16 (a "
                              "column of H), %llu copies; bound (4/9) 2^-2 (2 ln 512 + 2)/256 "
                              "||a||^2 ||b||^2 = %.4g; the fixed Hadamard gives 1.75",
                              (unsigned long long)N, B);
        srl__chk_result_set(out, SRL_CHECK_BOUND, z.mean, z.lo, z.hi, pred);
    }
    free(e2);
    return st;
}

/* T18f and T18g on generic inputs (independent symmetric signs): row->params.pairwise false,
 * T18f: the fixed Hadamard against the RHT, both with sr (the paired mean difference of the
 * squared errors, predicted 0); true, T18g: the fixed Hadamard with rn against the RHT with sr
 * (the ratio of mean squared errors, bound 1). */
int srl__chk_t18_fixed_rot(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    const bool rn = row->params.pairwise;
    const uint64_t N = srl__chk_seeds(o, 1 << 12, 1 << 15);
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    /* the experiment mutation: the aligned input, where the fixed Hadamard makes a spike */
    const srl_rounding hm = rn ? SRL_ROUND_RN : SRL_ROUND_SR;
    const t18r_cfg cfg[3] = {{T18R_HAD, hm, rn ? SRL_MX_OCP : SRL_MX_34},
                             {T18R_RHT, SRL_ROUND_SR, SRL_MX_34},
                             {T18R_NONE, hm, rn ? SRL_MX_OCP : SRL_MX_34}};
    double *e2 = malloc(3 * N * sizeof *e2), *d = malloc(N * sizeof *d);
    int st = e2 && d ? t18r_run(e2, cfg, 3, mut, N, 6 + rn, err)
                     : srl_err_set(err, SRL_ENOMEM, "T18: out of memory");
    if (!st) {
        const double *h = e2, *r = e2 + N;
        double mh, vh, mr, vr, mn, vn;
        srl__chk_mean_var(&mh, &vh, h, N);
        srl__chk_mean_var(&mr, &vr, r, N);
        srl__chk_mean_var(&mn, &vn, e2 + 2 * N, N); /* no rotation: reported only */
        if (!rn) {
            for (uint64_t c = 0; c < N; c++)
                d[c] = h[c] - r[c];
            const t18_stat z = t18_interval(d, N);
            const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? mr : 0.0;
            srl__chk_result_begin(out, row->check.id,
                                  "E e_H^2 - E e_RHT^2 over generic inputs (256 positions, "
                                  "independent symmetric signs, magnitudes over 8 binades), e "
                                  "the error of sum_i yb_i (4/3) Q(ya_i) (mxfp4, sr, 3/4 rule), "
                                  "paired, %llu inputs; predicted 0 (E e_RHT^2 = %.4g, "
                                  "E e_H^2 = %.4g, no rotation %.4g); MDE %.2g (%.1f%%)",
                                  (unsigned long long)N, mr, mh, mn, z.mde, 100 * z.mde / mr);
            srl__chk_result_set(out, SRL_CHECK_INTERVAL, z.mean, z.lo, z.hi, pred);
        } else {
            /* the ratio R = mean h / mean r, its delta-method interval from the paired values
             * h - R r (Student t at the check's level) */
            const double R = mh / mr;
            for (uint64_t c = 0; c < N; c++)
                d[c] = (h[c] - R * r[c]) / mr;
            double m0, v0;
            srl__chk_mean_var(&m0, &v0, d, N);
            const double se = sqrt(v0 / (double)N),
                         t = srl__chk_t(SRL_CHECK_ALPHA, (double)N - 1);
            const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? 0.25 : 1.0;
            srl__chk_result_begin(out, row->check.id,
                                  "E e_H,rn^2 / E e_RHT,sr^2 over generic inputs (as T18f; "
                                  "hadamard with rn and the ocp rule, the RHT with sr and the "
                                  "3/4 rule), paired, %llu inputs: %.4g / %.4g (rn without "
                                  "rotation: %.4g); bound 1; MDE: a true ratio of %.3g fails",
                                  (unsigned long long)N, mh, mr, mn, 1 + (t + Z99) * se);
            srl__chk_result_set(out, SRL_CHECK_BOUND, R, R - t * se, R + t * se, pred);
        }
    }
    free(e2);
    free(d);
    return st;
}
