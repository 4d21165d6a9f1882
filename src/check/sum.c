/* src/check/sum.c: the checks of summation and matrix-vector products (theory/T03-summation.md,
 * theory/T04-matvec.md), through the `sum`, `harmonic` and `matvec` runners of `srlab run`
 * (src/problems/sum.c) and the predictions of include/srlab/theory.h.
 *
 *   T03a  RN: |s - S| / sum|x_i| <= gamma_{k-1} at every logged k of every seed (a bound: no
 *         tolerance). Measured: the largest ratio rel_err / gamma.
 *   T03b  SR: each seed exceeds the probabilistic bound with probability at most
 *         2 exp(-lambda^2/2) (independent streams), so the number of exceeding seeds is
 *         stochastically below Binomial(N, 2 exp(-lambda^2/2)): the Clopper-Pearson lower limit
 *         of the exceedance frequency must not exceed that probability.
 *   T03c-e  the harmonic series' stagnation term and value under rn (bf16, fp16, fp32), exactly
 *         as srl_t03_harmonic_stagnation computes them on the integer grid.
 *   T03f  the harmonic series under sr: mean over seeds of (s_n - H_n) / H_n is 0 (Student t).
 *   T04a  RN: componentwise backward error <= theta (srl_t04_matvec_bound) at every logged k.
 *   T04b  SR: as T03b with the bound of T04 item 2, which holds for all rows at once.
 * Seeds are 1 .. N (the runners derive every stream from the seed). */
#include "check/check_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/theory.h"

/* An accumulation config: products and accumulation in f with mode m, recursive, no fma. */
static srl_accum accum_of(const srl_format *f, srl_rounding m)
{
    srl_accum c = srl_accum_binary64();
    c.prod_fmt = c.acc_fmt = *f;
    c.prod_mode = c.acc_mode = m;
    c.fma = false;
    c.order = SRL_ORDER_RECURSIVE;
    c.kahan = false;
    return c;
}

/* f with one more bit of precision (the "one bit more precise" mutation of the bounds). */
static srl_format finer(const srl_format *f)
{
    srl_format g = *f;
    srl_err e;
    if (srl_format_make(&g, f->p + 1, f->emax, f->emin, f->subnormals, f->inf, f->saturate, &e))
        return *f;
    return g;
}

static const char *mode_name(char *buf, size_t len, srl_rounding m)
{
    return srl_rounding_name(buf, len, m);
}

/* ---- per-seed runs ---- */

typedef struct seedjob {
    const char *problem;
    srl__chk_kv kv;
    srl__chk_rows *rows; /* one per seed */
} seedjob;

static int seed_item(void *ctx, size_t i, srl_err *err)
{
    seedjob *j = ctx;
    return srl__chk_run(&j->rows[i], SRL_RUN_EXPERIMENT, j->problem, &j->kv, (uint64_t)i + 1, NULL,
                        NULL, err);
}

/* Run j->problem for seeds 1 .. N into j->rows (allocated here; free with free_rows). */
static int run_seeds(seedjob *j, uint64_t N, srl_err *err)
{
    j->rows = calloc((size_t)N, sizeof *j->rows);
    if (!j->rows)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return srl__chk_parallel((size_t)N, seed_item, j, err);
}

static void free_rows(seedjob *j, uint64_t N)
{
    if (!j->rows)
        return;
    for (uint64_t i = 0; i < N; i++)
        srl__chk_rows_free(&j->rows[i]);
    free(j->rows);
    j->rows = NULL;
}

/* ---- T03a, T04a: deterministic bounds at every logged k ---- */

int srl__chk_rn_bound(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const bool matvec = row->params.matvec;
    const srl_format *bf16 = srl_format_find("bf16");
    const uint64_t N = srl__chk_seeds(o, 10, 40);
    const uint64_t n = matvec ? 256 : 255; /* sum: gamma_{n-1} is finite for (n-1) u < 1 */
    seedjob j;
    memset(&j, 0, sizeof j);
    j.problem = matvec ? "matvec" : "sum";
    srl__chk_kv_init(&j.kv);
    srl__chk_kv_set(&j.kv, "format", "bf16");
    srl__chk_kv_set(&j.kv, "rounding", "rn");
    srl__chk_kv_set(&j.kv, "n", "%llu", (unsigned long long)n);
    srl__chk_kv_set(&j.kv, "dist", "uniform");
    srl__chk_kv_set(&j.kv, "points", "20");
    if (matvec)
        srl__chk_kv_set(&j.kv, "m", "16");
    int st = run_seeds(&j, N, err);
    if (st) {
        free_rows(&j, N);
        return st;
    }
    /* the bound's config: the runs' own, or (mutation) one bit more precise */
    const srl_format g = o->mutation == SRL_CHECK_MUT_PREDICTION ? finer(bf16) : *bf16;
    const srl_accum c = accum_of(&g, SRL_ROUND_RN);
    double worst = 0;
    uint64_t wk = 0, ws = 0;
    for (uint64_t s = 0; s < N; s++) {
        const srl__chk_rows *r = &j.rows[s];
        for (size_t i = 0; i < r->n; i++) {
            const double k = srl__chk_col(r, i, "k");
            const double err_k = srl__chk_col(r, i, matvec ? "bwd_comp" : "rel_err");
            const double bound =
                matvec ? srl_t04_matvec_bound((size_t)k, &c) : srl_t03_sum_bound((size_t)k, &c);
            if (!(bound > 0) || !isfinite(bound))
                continue; /* k = 1 of a sum (exact) */
            const double ratio = err_k / bound;
            if (!isnan(worst) && !(ratio <= worst)) { /* a NaN is the worst and stays */
                worst = ratio;
                wk = (uint64_t)k;
                ws = s + 1;
            }
        }
    }
    free_rows(&j, N);
    if (matvec)
        srl__chk_result_begin(
            out, row->check.id,
            "max componentwise backward error / theta of y = A x "
            "(bf16 rn, A 16 x k, k <= %llu, uniform [0,1), column by column) over "
            "seeds 1-%llu and 20 k per decade; worst at k = %llu, seed %llu",
            (unsigned long long)n, (unsigned long long)N, (unsigned long long)wk,
            (unsigned long long)ws);
    else
        srl__chk_result_begin(
            out, row->check.id,
            "max |s - S| / (gamma_{k-1} sum|x_i|) of recursive sums "
            "(bf16 rn, k <= %llu uniform [0,1) terms) over seeds 1-%llu and 20 k per "
            "decade; worst at k = %llu, seed %llu",
            (unsigned long long)n, (unsigned long long)N, (unsigned long long)wk,
            (unsigned long long)ws);
    srl__chk_result_set(out, SRL_CHECK_BOUND, worst, worst, worst, 1.0);
    return SRL_OK;
}

/* ---- T03b, T04b: probabilistic bounds over seeds ---- */

int srl__chk_sr_bound(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const bool matvec = row->params.matvec;
    const srl_format *fp16 = srl_format_find("fp16");
    const uint64_t N = srl__chk_seeds(o, 20, 100);
    const double lambda = 2;
    const uint64_t n = matvec ? 32768 : 10000, m = 8;
    const srl_rounding mode = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? SRL_ROUND_RN : SRL_ROUND_SR;
    char mb[32];
    seedjob j;
    memset(&j, 0, sizeof j);
    j.problem = matvec ? "matvec" : "sum";
    srl__chk_kv_init(&j.kv);
    srl__chk_kv_set(&j.kv, "format", "fp16");
    srl__chk_kv_set(&j.kv, "rounding", "%s", mode_name(mb, sizeof mb, mode));
    srl__chk_kv_set(&j.kv, "n", "%llu", (unsigned long long)n);
    srl__chk_kv_set(&j.kv, "dist", "uniform");
    srl__chk_kv_set(&j.kv, "points", "1");
    srl__chk_kv_set(&j.kv, "lambda", "%g", lambda);
    if (matvec)
        srl__chk_kv_set(&j.kv, "m", "%llu", (unsigned long long)m);
    int st = run_seeds(&j, N, err);
    if (st) {
        free_rows(&j, N);
        return st;
    }
    /* the prediction: the bound for sr (the mutation changes the runs only) */
    const srl_accum c = accum_of(fp16, SRL_ROUND_SR);
    const double bound = matvec ? srl_t04_matvec_sr_bound((size_t)n, (size_t)m, &c, lambda)
                                : srl_t03_sum_sr_bound((size_t)n, fp16, lambda);
    const double pfail = 1 - srl_t03_sr_prob(lambda);
    uint64_t exceed = 0;
    double worst = 0;
    for (uint64_t s = 0; s < N; s++) {
        const double e = srl__chk_last(&j.rows[s], matvec ? "bwd_comp" : "rel_err");
        exceed += !(e <= bound);
        worst = fmax(worst, e);
    }
    free_rows(&j, N);
    double lo, hi;
    srl_check_clopper_pearson(&lo, &hi, exceed, N, SRL_CHECK_ALPHA);
    if (matvec)
        srl__chk_result_begin(
            out, row->check.id,
            "fraction of seeds 1-%llu whose componentwise backward "
            "error of y = A x (fp16 sr, A 8 x %llu uniform [0,1)) exceeds the T04 "
            "bound %.4g (lambda %g; largest error %.4g); predicted: at most "
            "2 exp(-lambda^2/2)",
            (unsigned long long)N, (unsigned long long)n, bound, lambda, worst);
    else
        srl__chk_result_begin(
            out, row->check.id,
            "fraction of seeds 1-%llu whose |s - S| / sum|x_i| (fp16 "
            "sr, %llu uniform [0,1) terms, recursive) exceeds the T03 bound %.4g "
            "(lambda %g; largest error %.4g); predicted: at most 2 exp(-lambda^2/2)",
            (unsigned long long)N, (unsigned long long)n, bound, lambda, worst);
    srl__chk_result_set(out, SRL_CHECK_BOUND, (double)exceed / (double)N, lo, hi, pfail);
    return SRL_OK;
}

/* ---- T03c-e: harmonic stagnation under rn ---- */

int srl__chk_harmonic_rn(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    const char *id = row->check.id, *format = row->params.harmonic.format;
    const char *other = row->params.harmonic.other;
    const uint64_t n = row->params.harmonic.n;
    const srl_format *f = srl_format_find(format);
    const srl_format *pf = o->mutation == SRL_CHECK_MUT_PREDICTION ? srl_format_find(other) : f;
    const char *mode = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rz" : "rn";
    srl__chk_kv kv;
    srl__chk_kv_init(&kv);
    srl__chk_kv_set(&kv, "format", "%s", format);
    srl__chk_kv_set(&kv, "rounding", "%s", mode);
    srl__chk_kv_set(&kv, "n", "%llu", (unsigned long long)n);
    srl__chk_kv_set(&kv, "points", "1");
    srl__chk_rows r;
    int st = srl__chk_run(&r, SRL_RUN_EXPERIMENT, "harmonic", &kv, 1, NULL, NULL, err);
    if (st)
        return st;
    const double k = srl__chk_last(&r, "stagnation"), sum = srl__chk_last(&r, "sum");
    srl__chk_rows_free(&r);
    srl_t03_stagnation pred;
    if ((st = srl_t03_harmonic_stagnation(&pred, pf, SRL_ROUND_RN, n, err)))
        return st;
    srl__chk_result_begin(out, id,
                          "stagnation term of the harmonic series, every term and sum in "
                          "%s with %s (%llu terms, deterministic); predicted by the integer-grid "
                          "criterion: term %llu, sum %.17g; observed sum %.17g",
                          format, mode, (unsigned long long)n, (unsigned long long)pred.k, pred.sum,
                          sum);
    srl__chk_result_set(out, SRL_CHECK_EXACT, k, k, k, pred.found ? (double)pred.k : NAN);
    if (out->pass && sum != pred.sum) { /* the stagnated value must agree too */
        out->pass = false;
        out->margin = -fabs(sum - pred.sum) / fabs(pred.sum);
    }
    return SRL_OK;
}

/* ---- T03f: harmonic series under sr ---- */

int srl__chk_harmonic_sr(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 20, 60), n = 2000;
    seedjob j;
    memset(&j, 0, sizeof j);
    j.problem = "harmonic";
    srl__chk_kv_init(&j.kv);
    srl__chk_kv_set(&j.kv, "format", "bf16");
    srl__chk_kv_set(&j.kv, "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr:r=4" : "sr");
    srl__chk_kv_set(&j.kv, "n", "%llu", (unsigned long long)n);
    srl__chk_kv_set(&j.kv, "points", "1");
    int st = run_seeds(&j, N, err);
    if (st) {
        free_rows(&j, N);
        return st;
    }
    double *rel = malloc((size_t)N * sizeof *rel);
    if (!rel) {
        free_rows(&j, N);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    for (uint64_t s = 0; s < N; s++)
        rel[s] = (srl__chk_last(&j.rows[s], "sum") - srl__chk_last(&j.rows[s], "exact")) /
                 srl__chk_last(&j.rows[s], "exact");
    free_rows(&j, N);
    double mean, var;
    srl__chk_mean_var(&mean, &var, rel, (size_t)N);
    free(rel);
    const double half = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1)) * sqrt(var / (double)N);
    srl__chk_result_begin(
        out, row->check.id,
        "mean over seeds 1-%llu of (s_n - H_n) / H_n, harmonic series "
        "in bf16 with sr, n = %llu (rn stops at 5.0625, 38%% below H_n); Student t "
        "interval",
        (unsigned long long)N, (unsigned long long)n);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, 0.0);
    return SRL_OK;
}

/* ---- T03g-i: SR recursive summation, path by path (theory/T03 items 5-7) ---- */

#define PATH_N 2048 /* terms */

/* One path: s_k = SR(s_{k-1} + t_k) in bf16 through ops, against the exact prefix sums S_k.
 * Sum (T03): t_k = x_k, a binary32 value in [2^-4, 1) in magnitude; y_k = s_{k-1} + x_k is exact
 * in binary64 (a bf16 and a binary32 value of bounded exponents) and so is S (2048 terms need
 * fewer than 40 bits). Inner product (T04, one row of A x): t_k = SR(a_k x_k) in bf16 first (the
 * product of two binary32 values is exact in binary64), S = sum a_k x_k accumulated in binary64:
 * its own error, below 2048 * 2^-53 sum |a_k x_k| ~ 1e-10, is 1e-10 of RMS(s - S) (~0.7). Both
 * roundings of a step are martingale increments. */
typedef struct path_out {
    double e;   /* s_n - S_n */
    double v;   /* sum over the roundings of (y - RD(y)) (RU(y) - y): the conditional variance */
    double dep; /* sum over the roundings of delta sign(y): 0 in mean when E[delta | past] = 0 */
} path_out;

typedef struct path_job {
    const double *x, *a; /* the terms; with a, the inner product of a and x */
    srl_rounding mode;
    bool quarter; /* the prediction mutation: V with q^2/4 per step */
    const char *id;
    path_out *out;
} path_job;

static int path_item(void *ctx, size_t i, srl_err *err)
{
    (void)err;
    const path_job *j = ctx;
    const srl_format *bf16 = srl_format_find("bf16");
    const srl_rounding rd = {SRL_RD, 0}, ru = {SRL_RU, 0};
    srl_rng root, r;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str(j->id));
    srl_rng_derive(&r, &root, (uint64_t)i);
    double s = 0, S = 0, v = 0, dep = 0, s_term = 0;
    for (size_t k = 0; k < 2 * PATH_N; k++) {
        /* even k: the product (inner product only), odd k: the addition */
        const size_t i_ = k / 2;
        if (k % 2 == 0 && !j->a)
            continue;
        const double y = k % 2 == 0 ? j->a[i_] * j->x[i_] : s + (j->a ? s_term : j->x[i_]);
        const double lo = srl_round(y, bf16, rd, NULL), hi = srl_round(y, bf16, ru, NULL);
        const double yn = srl_round(y, bf16, j->mode, &r);
        v += j->quarter ? 0.25 * (hi - lo) * (hi - lo) : (y - lo) * (hi - y);
        dep += (yn - y) * (y > 0 ? 1.0 : y < 0 ? -1.0 : 0.0);
        if (k % 2 == 0) {
            s_term = yn;
        } else {
            s = yn;
            S += j->a ? j->a[i_] * j->x[i_] : j->x[i_];
        }
    }
    j->out[i] = (path_out){s - S, v, dep};
    return SRL_OK;
}

/* T03g/T04c: the path-variance identity E(s - S)^2 = sum E[(y - RD)(RU - y)] over the roundings,
 * tested on the per-path differences (s - S)^2 - V (paired: V is nearly constant); T03h/T04d:
 * E[s] = S; T03i/T04e: mean independence, E[delta h(past)] = 0 for h(past) = sign(y) (y is fixed
 * before its draw: no drift toward or away from zero). Paths are independent (one stream each),
 * so each mean has a Student t interval (M - 1 degrees of freedom). The row's params say which
 * statistic and whether the terms are products. */
int srl__chk_sr_paths(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const uint64_t M = srl__chk_seeds(o, 2000, 20000);
    const char which = row->params.paths.stat;
    const bool dot = row->params.paths.dot;
    /* one block: x, a, the per-path statistic */
    double *x = malloc((2 * PATH_N + (size_t)M) * sizeof *x);
    path_out *po = malloc((size_t)M * sizeof *po);
    if (!x || !po) {
        free(x);
        free(po);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    double *a = x + PATH_N, *d = a + PATH_N;
    /* the data, fixed for every path: binary32 values (more fraction bits than bf16 keeps, the
     * realistic input of a bf16 accumulator) uniform in magnitude over [2^-4, 1) with random
     * signs (seed 1, stream "T03g/data": x, then a) */
    srl_rng dr;
    srl_rng_init(&dr, SRL_RNG_DEFAULT, 1, srl_hash_str("T03g/data"));
    for (size_t k = 0; k < 2 * PATH_N; k++) {
        const double u = srl_rng_uniform(&dr), sg = (srl_rng_next(&dr) & 1) ? -1 : 1;
        x[k] = sg * (double)(float)(ldexp(1, -4) + u * (1 - ldexp(1, -4)));
    }
    /* the experiment mutations: sr-eq for the identity (variance q^2/4), sr:r=4 otherwise */
    const srl_rounding wrong = which == 'v' ? (srl_rounding){SRL_SR_EQ, 0}
                                            : (srl_rounding){SRL_SR_BITS, 4};
    path_job j = {x,
                  dot ? a : NULL,
                  o->mutation == SRL_CHECK_MUT_EXPERIMENT ? wrong : SRL_ROUND_SR,
                  o->mutation == SRL_CHECK_MUT_PREDICTION,
                  row->check.id,
                  po};
    int st = srl__chk_parallel((size_t)M, path_item, &j, err);
    if (!st) {
        double mv, vv, mean, var;
        for (uint64_t i = 0; i < M; i++)
            d[i] = po[i].v;
        srl__chk_mean_var(&mv, &vv, d, (size_t)M);
        for (uint64_t i = 0; i < M; i++)
            d[i] = which == 'v' ? po[i].e * po[i].e - po[i].v : which == 'm' ? po[i].e : po[i].dep;
        srl__chk_mean_var(&mean, &var, d, (size_t)M);
        /* in units of E(s - S)^2 (v) or of its square root (m, i) */
        const double unit = which == 'v' ? mv : sqrt(mv);
        const double half =
            srl__chk_t(SRL_CHECK_ALPHA, (double)(M - 1)) * sqrt(var / (double)M) / unit;
        srl__chk_result_begin(
            out, row->check.id,
            "%s over %llu paths (seed 1, streams %s/path) of bf16 recursive SR %s of the same "
            "%d binary32 %s (magnitudes in [2^-4, 1), random signs); V = sum E(y - RD)(RU - y) "
            "over the roundings = %.4g",
            which == 'v'   ? "mean of (s - S)^2 - V, / V"
            : which == 'm' ? "mean of s - S, / RMS(s - S)"
                           : "mean of the sum of delta sign(y) (y known before its draw), / "
                             "RMS(s - S)",
            (unsigned long long)M, row->check.id, dot ? "inner products" : "sums", PATH_N,
            dot ? "pairs, products rounded with sr too" : "terms", mv);
        srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean / unit, mean / unit - half,
                            mean / unit + half, 0.0);
    }
    free(x);
    free(po);
    return st;
}

/* ---- T03j: the sqrt(n) growth of SR summation's RMS error (theory/T03 item 5) ---- */

#define SLOPE_K 5
static const int slope_log2n[SLOPE_K] = {5, 9, 12, 16, 19}; /* n from 32 to 524288 */

typedef struct slope_job {
    const double *x; /* binary32 values */
    srl_rounding mode;
    uint64_t M;        /* paths per n */
    double *e2, *v;    /* SLOPE_K x M: (s - S)^2 and the path's sum of (y - RD)(RU - y) */
} slope_job;

/* Path i of the job: n = 2^slope_log2n[i / M] terms summed in binary32 with sr
 * (y = s + x is exact in binary64: a binary32 sum below 2^20 and a binary32 term in [1/2, 1)),
 * RD and RU of y in binary32 from the native conversion (round to nearest) and a step. */
static int slope_item(void *ctx, size_t i, srl_err *err)
{
    (void)err;
    const slope_job *j = ctx;
    const size_t kn = i / (size_t)j->M, n = (size_t)1 << slope_log2n[kn];
    const srl_format *fp32 = srl_format_find("fp32");
    srl_rng root, r;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str("T03j"));
    srl_rng_derive(&r, &root, (uint64_t)i);
    double s = 0, S = 0, v = 0;
    for (size_t k = 0; k < n; k++) {
        const double y = s + j->x[k];
        float lo = (float)y;
        if ((double)lo > y)
            lo = nextafterf(lo, -INFINITY);
        const double hi = (double)lo == y ? y : (double)nextafterf(lo, INFINITY);
        v += (y - (double)lo) * (hi - y);
        s = srl_round(y, fp32, j->mode, &r);
        S += j->x[k];
    }
    j->e2[i] = (s - S) * (s - S) / (S * S);
    j->v[i] = v / (S * S);
    return SRL_OK;
}

/* The least-squares slope of y on log n over the SLOPE_K sizes, and (with se2, the variances of
 * the y's) its standard error. */
static double ls_slope(const double *y, const double *se2, double *se)
{
    double mx = 0, my = 0;
    for (int k = 0; k < SLOPE_K; k++) {
        mx += slope_log2n[k] * log(2.0) / SLOPE_K;
        my += y[k] / SLOPE_K;
    }
    double sxx = 0, sxy = 0, var = 0;
    for (int k = 0; k < SLOPE_K; k++) {
        const double dx = slope_log2n[k] * log(2.0) - mx;
        sxx += dx * dx;
        sxy += dx * (y[k] - my);
    }
    for (int k = 0; k < SLOPE_K && se2; k++) {
        const double dx = slope_log2n[k] * log(2.0) - mx;
        var += dx * dx * se2[k];
    }
    if (se)
        *se = sqrt(var) / sxx;
    return sxy / sxx;
}

/* T03j: the relative RMS error sqrt(E(s - S)^2) / S of a binary32 recursive SR sum of n terms in
 * [1/2, 1) grows as sqrt(n): the least-squares slope of its log against log n over n = 2^5 ..
 * 2^19 (4.2 decades, M independent paths per n) must contain 1/2. The sizes are powers of two,
 * so S_n sits at the same place in its binade for every n and the grid's spacing along the path
 * scales exactly with n (the sqrt(n) law without the binade's log-periodic wobble); what remains
 * of the law's model error at small n is measured by the slope of the paths' own
 * sqrt(E V) / S, which T03g shows is the RMS, and added to the tolerance. The interval: the
 * delta method on each log RMS (variance Var((s-S)^2) / (4 M E((s-S)^2)^2)), normal quantile. */
int srl__chk_sr_slope(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const uint64_t M = srl__chk_seeds(o, 24, 96);
    const size_t nmax = (size_t)1 << slope_log2n[SLOPE_K - 1];
    /* one block: the terms, then (s - S)^2 and V of every path */
    double *x = malloc((nmax + 2 * SLOPE_K * (size_t)M) * sizeof *x);
    if (!x)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    double *e2 = x + nmax, *v = e2 + SLOPE_K * (size_t)M;
    srl_rng dr;
    srl_rng_init(&dr, SRL_RNG_DEFAULT, 1, srl_hash_str("T03j/data"));
    for (size_t k = 0; k < nmax; k++)
        x[k] = (double)(float)(0.5 + 0.5 * srl_rng_uniform(&dr));
    const srl_rounding bits4 = {SRL_SR_BITS, 4};
    slope_job j = {x, o->mutation == SRL_CHECK_MUT_EXPERIMENT ? bits4 : SRL_ROUND_SR, M, e2, v};
    int st = srl__chk_parallel(SLOPE_K * (size_t)M, slope_item, &j, err);
    if (!st) {
        double ly[SLOPE_K], lv[SLOPE_K], se2[SLOPE_K];
        for (int k = 0; k < SLOPE_K; k++) {
            double m, var, mv, vv;
            srl__chk_mean_var(&m, &var, e2 + (size_t)k * M, (size_t)M);
            srl__chk_mean_var(&mv, &vv, v + (size_t)k * M, (size_t)M);
            ly[k] = 0.5 * log(m);
            lv[k] = 0.5 * log(mv);
            se2[k] = var / (4 * (double)M * m * m);
        }
        double se;
        const double b = ls_slope(ly, se2, &se), bv = ls_slope(lv, NULL, NULL);
        const double half = srl__chk_z(SRL_CHECK_ALPHA) * se + fabs(bv - 0.5);
        const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? 1.0 : 0.5;
        srl__chk_result_begin(
            out, row->check.id,
            "least-squares slope of log RMS((s - S)/S) on log n, n = 2^5, 2^9, 2^12, 2^16, 2^19 "
            "(4.2 decades), binary32 recursive SR sums of terms in [1/2, 1), %llu paths per n "
            "(seed 1, streams T03j/path); the identity's slope (of sqrt(E V)/S) %.4f",
            (unsigned long long)M, bv);
        srl__chk_result_set(out, SRL_CHECK_INTERVAL, b, b - half, b + half, pred);
    }
    free(x);
    return st;
}
