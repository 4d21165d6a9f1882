/* src/check/t15_17_literature.c: the checks of three statements from the literature.
 *
 *   T15a  heat equation, SR (binary32 values, r = 1/4, t = 1/16): the slope of log RMS error
 *         against log dt over m = 8 .. 256 (dt = h^2/4) against the slope of the variance
 *         model's bound over the same dt (-> -1/4, Croci and Giles 2022); delta-method interval.
 *   T15b  heat equation, SR: the mean square error at every dt below the bound
 *         srl_t15_sr_ms_bound (the worst margin over the dt).
 *   T15c  heat equation, RN (fp16, m = 512, dt mu1 < u/2): every update is lost, the error is
 *         exactly the frozen prediction srl_t15_frozen_rms (deterministic).
 *   T16a  quad1d GD under bf16-kahan (RN writes, lr 1e-3, where plain RN stalls): the weight
 *         dithers between the neighbours of x* with time average x* (band 2 ulp/K + uc ulp/lr).
 *   T16b  quad1d GD under bf16-kahan with SR writes: E (x_t - x_exact)^2 at t = 500 equals the
 *         variance of one SR rounding of x_exact, (x_exact - RD)(RU - x_exact) (<= ulp^2/4).
 *   T17a  recursive SR summation in bf16 (n = 1024 terms in (0, 1]): E (s - S)^2 <= the bound.
 *   T17b  pairwise: the same with the pairwise bound.
 *   T17c  Chebyshev: P(|s - S| >= 2 sqrt(bound)) <= 1/4 (recursive), Clopper-Pearson.
 * Each statistical check reports its minimum detectable effect (MDE): the true value at which it
 * fails with probability >= 0.99, from the same standard error (z 2.326 beyond its threshold).
 * Seeds 1 .. N; OpenMP over seeds, each into its own slot. */
#include "check/check_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "problems/heat.h"
#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/theory.h"

#define Z99 2.3263478740408408 /* the one-sided 0.99 normal quantile: the MDE's power */

/* ---- T15 ---- */

#define T15_R 0.25
#define T15_T 0.0625
#define T15_NM_MAX 8

typedef struct heat_job {
    srl__heat_cfg cfg[T15_NM_MAX];
    size_t nm;
    uint64_t N;
    double *ms; /* nm x N: each run's mean square error */
} heat_job;

static int heat_item(void *ctx, size_t i, srl_err *err)
{
    heat_job *h = ctx;
    srl__heat_cfg c = h->cfg[i / h->N];
    c.seed = 1 + i % h->N;
    srl__heat_out r;
    int st = srl__heat_solve(&r, &c, err);
    if (!st)
        h->ms[i] = r.rms_err * r.rms_err;
    return st;
}

/* The SR runs of T15a/b: m = 8, 16, ... (5 values quick, 6 full), N seeds each, in `format`
 * with `mode`. */
static int heat_sr_runs(heat_job *h, const srl_check_opts *o, const char *format,
                        srl_rounding mode, srl_err *err)
{
    h->ms = NULL;
    h->nm = o->quick ? 5 : 6;
    h->N = srl__chk_seeds(o, 48, 64);
    int st = srl_format_parse(&h->cfg[0].format, format, err);
    if (st)
        return st;
    for (size_t k = 0; k < h->nm; k++) {
        h->cfg[k] = h->cfg[0];
        h->cfg[k].m = UINT64_C(8) << k;
        h->cfg[k].r = T15_R;
        h->cfg[k].t_end = T15_T;
        h->cfg[k].mode = mode;
    }
    h->ms = malloc(h->nm * h->N * sizeof *h->ms);
    if (!h->ms)
        return srl_err_set(err, SRL_ENOMEM, "T15: out of memory");
    return srl__chk_parallel(h->nm * h->N, heat_item, h, err);
}

static uint64_t heat_steps(uint64_t m)
{
    const double h = 1.0 / (double)m;
    return (uint64_t)fmax(1.0, nearbyint(T15_T / (T15_R * h * h)));
}

int srl__chk_heat_sr_slope(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    heat_job h;
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    int st = heat_sr_runs(&h, o, "fp32", mut ? (srl_rounding){SRL_SR_BITS, 1} : SRL_ROUND_SR, err);
    if (st) {
        free(h.ms);
        return st;
    }
    const double u = 0x1p-24;
    double x[T15_NM_MAX], y[T15_NM_MAX], yb[T15_NM_MAX], vy[T15_NM_MAX];
    for (size_t k = 0; k < h.nm; k++) {
        double mean, var;
        srl__chk_mean_var(&mean, &var, h.ms + k * h.N, h.N);
        x[k] = log(T15_R / (double)(h.cfg[k].m * h.cfg[k].m));
        y[k] = 0.5 * log(mean);                           /* log RMS */
        vy[k] = 0.25 * var / ((double)h.N * mean * mean); /* delta method */
        yb[k] = 0.5 * log(srl_t15_sr_ms_bound(h.cfg[k].m, T15_R, heat_steps(h.cfg[k].m), u));
    }
    free(h.ms);
    double mx = 0, sxx = 0, vb = 0;
    for (size_t k = 0; k < h.nm; k++)
        mx += x[k] / (double)h.nm;
    for (size_t k = 0; k < h.nm; k++)
        sxx += (x[k] - mx) * (x[k] - mx);
    for (size_t k = 0; k < h.nm; k++)
        vb += (x[k] - mx) * (x[k] - mx) / (sxx * sxx) * vy[k];
    const double b = srl_t15_slope(x, y, h.nm), se = sqrt(vb);
    const double t = srl__chk_t(SRL_CHECK_ALPHA, (double)h.N - 1);
    double pred = srl_t15_slope(x, yb, h.nm);
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        pred = -0.5; /* the exponent of RMS at fixed h (dt^-1/2), not along dt = r h^2 */
    srl__chk_result_begin(out, row->check.id,
                          "slope of log RMS error vs log dt, heat equation by explicit Euler, "
                          "binary32 sr updates, dt = h^2/4, m = 8-%llu, t = 1/16, seeds 1-%llu; "
                          "predicted: the slope of the variance model (-> -1/4); MDE +-%.3f",
                          (unsigned long long)h.cfg[h.nm - 1].m, (unsigned long long)h.N,
                          (t + Z99) * se);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, b, b - t * se, b + t * se, pred);
    return SRL_OK;
}

int srl__chk_heat_sr_bound(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    heat_job h;
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    int st = heat_sr_runs(&h, o, mut ? "p=20,emax=127" : "fp32", SRL_ROUND_SR, err);
    if (st) {
        free(h.ms);
        return st;
    }
    const double u = 0x1p-24, t = srl__chk_t(SRL_CHECK_ALPHA / (double)h.nm, (double)h.N - 1);
    bool have = false;
    for (size_t k = 0; k < h.nm; k++) {
        double mean, var;
        srl__chk_mean_var(&mean, &var, h.ms + k * h.N, h.N);
        const double se = sqrt(var / (double)h.N);
        const double B = srl_t15_sr_ms_bound(h.cfg[k].m, T15_R, heat_steps(h.cfg[k].m), u);
        srl_check_result c;
        srl__chk_result_begin(&c, row->check.id,
                              "mean square SR error of the heat equation (binary32, dt = h^2/4, "
                              "t = 1/16) at m = %llu (worst of m = 8-%llu), seeds 1-%llu; "
                              "predicted bound (u^2/4) sum_k (1 - l_k^2N)/(1 - l_k^2)/(m - 1); "
                              "MDE %.3g (%.2f x measured)",
                              (unsigned long long)h.cfg[k].m,
                              (unsigned long long)h.cfg[h.nm - 1].m, (unsigned long long)h.N,
                              B + (t + Z99) * se, (B + (t + Z99) * se) / mean);
        srl__chk_result_set(&c, SRL_CHECK_BOUND, mean, mean - t * se, mean + t * se, B);
        srl__chk_keep_worst(out, &c, &have);
    }
    free(h.ms);
    return SRL_OK;
}

/* The fp16 rn (mutation: sr) heat equation at m into *r, and T15's predictions for it into *v. */
static int heat_rn_run(srl__heat_out *r, srl_t15_values *v, uint64_t m, const srl_check_opts *o,
                       const char *id, srl_err *err)
{
    srl__heat_cfg c = {.m = m, .r = T15_R, .t_end = T15_T, .seed = 1};
    c.mode = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? SRL_ROUND_SR : SRL_ROUND_RN;
    int st = srl_format_parse(&c.format, "fp16", err);
    if (st || (st = srl__heat_solve(r, &c, err)))
        return st;
    double *work = malloc(4 * (c.m + 1) * sizeof *work);
    if (!work)
        return srl_err_set(err, SRL_ENOMEM, "%s: out of memory", id);
    st = srl_t15_eval(v, c.m, c.r, c.t_end, &c.format, work);
    free(work);
    return st ? srl_err_set(err, SRL_EINVAL, "%s: srl_t15_eval refused its parameters", id)
              : SRL_OK;
}

int srl__chk_heat_rn_frozen(srl_check_result *out, const srl__chk_row *row,
                            const srl_check_opts *o, srl_err *err)
{
    srl__heat_out r;
    srl_t15_values v;
    const int st = heat_rn_run(&r, &v, 512, o, row->check.id, err);
    if (st)
        return st;
    srl__chk_result_begin(out, row->check.id,
                          "RMS error of the fp16 rn heat equation at m = 512 (dt mu1 / u = %.3f "
                          "< 1/2: every update below half a spacing; %.6f of them lost), "
                          "%llu steps; predicted: the frozen error rms(U0 - V_T) (exact)",
                          v.update_ratio, r.lost_frac, (unsigned long long)r.steps);
    srl__chk_result_set(out, SRL_CHECK_EXACT, r.rms_err, r.rms_err, r.rms_err, v.frozen_rms);
    return SRL_OK;
}

/* T15d: at fp16, m = 128 (dt mu1 / u = 0.31 < 1/2) a few updates do pass: U0's rounding noise
 * lifts r |L_j| to half a spacing at 24 points, 4 more follow at step 2, then the rounded map is
 * at a fixed point. The solver's lost fraction and final RMS error against srl_t15_rn_fixed_point
 * and srl_t15_frozen_rms (exact; the worst of the two); the prediction mutation is the old
 * statement, no update survives (lost fraction 1). */
int srl__chk_heat_rn_passes(srl_check_result *out, const srl__chk_row *row,
                            const srl_check_opts *o, srl_err *err)
{
    srl__heat_out r;
    srl_t15_values v;
    const int st = heat_rn_run(&r, &v, 128, o, row->check.id, err);
    if (st)
        return st;
    const double lost = o->mutation == SRL_CHECK_MUT_PREDICTION ? 1.0 : v.rn.lost_frac;
    srl_check_result a, b;
    bool have = false;
    srl__chk_result_begin(&a, row->check.id,
                          "fp16 rn heat equation, m = 128 (dt mu1/u = %.3f < 1/2): lost fraction "
                          "%.9g = 1 - %llu passes / %llu updates (predicted %llu passes, %llu at "
                          "step 1, fixed point after %llu steps; exact)",
                          v.update_ratio, r.lost_frac,
                          (unsigned long long)llround((1 - r.lost_frac) * (double)v.rn.changed),
                          (unsigned long long)v.rn.changed, (unsigned long long)v.rn.passes,
                          (unsigned long long)v.rn.first_step_passes,
                          (unsigned long long)v.rn.fixed_step);
    srl__chk_result_set(&a, SRL_CHECK_EXACT, r.lost_frac, r.lost_frac, r.lost_frac, lost);
    srl__chk_keep_worst(out, &a, &have);
    srl__chk_result_begin(&b, row->check.id,
                          "RMS error of the same run: the fixed point's rms(U* - V_T) (exact)");
    srl__chk_result_set(&b, SRL_CHECK_EXACT, r.rms_err, r.rms_err, r.rms_err, v.frozen_rms);
    srl__chk_keep_worst(out, &b, &have);
    return SRL_OK;
}

/* ---- T16 ---- */

#define T16_XS 0.3
#define T16_X0 1.0
#define T16_LR 1e-3

static void kahan_kv(srl__chk_kv *kv, const char *rounding, bool kahan, uint64_t steps)
{
    /* the compensation in binary32: its own rounding (2^-24 c per step) stays below comp_tol */
    srl__chk_kv_set(kv, "comp-format", "fp32");
    srl__chk_kv_set(kv, "opt", "sgd");
    srl__chk_kv_set(kv, "strategy", "bf16-kahan");
    srl__chk_kv_set(kv, "rounding", "%s", rounding);
    srl__chk_kv_set(kv, "kahan", "%s", kahan ? "on" : "off");
    /* binary64 gradient and update: the writes' roundings alone */
    srl__chk_kv_set(kv, "grad-format", "fp64");
    srl__chk_kv_set(kv, "update-arith", "fp64");
    srl__chk_kv_set(kv, "a", "1");
    srl__chk_kv_set(kv, "xstar", "%.17g", T16_XS);
    srl__chk_kv_set(kv, "x0", "%.17g", T16_X0);
    srl__chk_kv_set(kv, "lr", "%.17g", T16_LR);
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)steps);
}

/* The mean of the weight over the steps after burn (rows of every step). */
static int late_x(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                  srl_err *err)
{
    (void)seed, (void)err;
    out[0] = srl__chk_late_mean(&rows[0], "x", *(const double *)j->ctx);
    return SRL_OK;
}

int srl__chk_kahan_rn(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const uint64_t T = 20000, K = T / 2;
    const double burn = (double)(T - K);
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, late_x, &burn);
    kahan_kv(&j.kv[0], "rn", o->mutation != SRL_CHECK_MUT_EXPERIMENT, T);
    srl__chk_kv_set(&j.kv[0], "log-every", "1");
    int st = srl__chk_job_run(&j, 1, err);
    if (st)
        return st;
    const double x = j.out[0];
    free(j.out);
    srl_t16_values v;
    srl_t16_eval(&v, 1, T16_XS, T16_X0, T16_LR, T, srl__chk_bf16(), 0x1p-24);
    const double tol = srl_t16_rn_mean_tol(v.ulp, T16_LR, 1, K, 0x1p-24);
    srl__chk_result_begin(out, row->check.id,
                          "mean weight over steps %llu-%llu of bf16-kahan GD (rn writes, fp32 "
                          "compensation, binary64 gradient and update), quad1d, x* = 0.3, x0 = 1, "
                          "lr 1e-3 (plain rn stalls %.3g from x*); predicted x* +- %.2g",
                          (unsigned long long)(T - K + 1), (unsigned long long)T, v.rn_stall, tol);
    srl__chk_result_set(out, SRL_CHECK_BAND, x, T16_XS - tol, T16_XS + tol, T16_XS);
    return SRL_OK;
}

static int dev2(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                srl_err *err)
{
    (void)seed, (void)err;
    const double xe = *(const double *)j->ctx, d = srl__chk_last(&rows[0], "x") - xe;
    out[0] = d * d;
    return SRL_OK;
}

int srl__chk_kahan_sr(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const uint64_t T = 500, N = srl__chk_seeds(o, 100, 400);
    srl_t16_values v;
    srl_t16_eval(&v, 1, T16_XS, T16_X0, T16_LR, T, srl__chk_bf16(), 0x1p-24);
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, dev2, &v.x_exact);
    kahan_kv(&j.kv[0], "sr", o->mutation != SRL_CHECK_MUT_EXPERIMENT, T);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    double mean, var;
    srl__chk_mean_var(&mean, &var, j.out, N);
    free(j.out);
    const double se = sqrt(var / (double)N), t = srl__chk_t(SRL_CHECK_ALPHA, (double)N - 1);
    srl__chk_result_begin(out, row->check.id,
                          "E (x_t - x_exact)^2, bf16-kahan GD with exact sr writes (fp32 "
                          "compensation, binary64 gradient and update), quad1d, lr 1e-3, t = %llu, "
                          "seeds 1-%llu; predicted (x_exact - RD)(RU - x_exact) (plain sr %.3g); "
                          "MDE +-%.2g",
                          (unsigned long long)T, (unsigned long long)N, v.sr_plain_ms,
                          (t + Z99) * se + v.comp_tol);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - t * se - v.comp_tol,
                        mean + t * se + v.comp_tol, v.sr_kahan_ms);
    return SRL_OK;
}

/* T16d: plain SR (no compensation) accumulates E (w_t - x_t)^2 as the law of w_t propagated over
 * the grid says (srl_t16_plain_sr_ms); the uniform-cell formula (ulp^2/6 per step, T16 before)
 * is 38% too large at t = 500: the law starts at one point and its early writes' fractions are
 * not uniform. */
int srl__chk_plain_sr(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const uint64_t T = 500, N = srl__chk_seeds(o, 1000, 4000);
    srl_t16_values v;
    srl_t16_eval(&v, 1, T16_XS, T16_X0, T16_LR, T, srl__chk_bf16(), 0x1p-24);
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, dev2, &v.x_exact);
    kahan_kv(&j.kv[0], o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr", false, T);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    double mean, var;
    srl__chk_mean_var(&mean, &var, j.out, N);
    free(j.out);
    const double se = sqrt(var / (double)N), t = srl__chk_t(SRL_CHECK_ALPHA, (double)N - 1);
    const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? v.sr_plain_ms_uniform
                                                                : v.sr_plain_ms;
    srl__chk_result_begin(out, row->check.id,
                          "E (w_t - x_exact)^2, plain bf16 GD with exact sr writes (binary64 "
                          "gradient and update), quad1d, x* 0.3, x0 1, lr 1e-3, t = %llu, seeds "
                          "1-%llu; predicted the law's %.4g (uniform cells: %.4g; Kahan: %.4g)",
                          (unsigned long long)T, (unsigned long long)N, v.sr_plain_ms,
                          v.sr_plain_ms_uniform, v.sr_kahan_ms);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - t * se, mean + t * se, pred);
    return SRL_OK;
}

/* ---- T17 ---- */

#define T17_N 1024

typedef struct sum_job {
    double x[T17_N];
    srl_accum acc;
    uint64_t N;
    double S;
    double *err; /* N: s - S per seed */
} sum_job;

static int sum_item(void *ctx, size_t i, srl_err *err)
{
    sum_job *q = ctx;
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_DEFAULT, 1 + i, 0);
    double s;
    int st = srl_sum(&s, q->x, T17_N, &q->acc, &r);
    if (st)
        return srl_err_set(err, st, "T17: srl_sum failed");
    q->err[i] = s - q->S; /* exact: s and S are multiples of 2^-8 below 2^11 */
    return SRL_OK;
}

/* The data (terms k/256, k uniform in 1 .. 256, from stream 0 of seed 0: the same for every
 * seed) and the SR errors of seeds 1 .. N. */
static int sum_runs(sum_job *q, bool pairwise, const srl_check_opts *o, uint64_t quick,
                    uint64_t full, srl_err *err)
{
    srl_rng d;
    srl_rng_init(&d, SRL_RNG_DEFAULT, 0, 0);
    q->S = 0;
    for (size_t i = 0; i < T17_N; i++) {
        q->x[i] = (double)(1 + srl_rng_below(&d, 256)) / 256;
        q->S += q->x[i];
    }
    q->acc = srl_accum_binary64();
    char spec[96];
    /* the experiment mutations: a biased sr (recursive), a format one bit coarser (pairwise,
     * whose few roundings per term a bias hardly moves) */
    const bool mut = o->mutation == SRL_CHECK_MUT_EXPERIMENT;
    snprintf(spec, sizeof spec, "acc=%s:%s,order=%s",
             mut && pairwise ? "(p=7,emax=127)" : "bf16", mut && !pairwise ? "sr:r=2" : "sr",
             pairwise ? "pairwise" : "recursive");
    int st = srl_accum_parse(&q->acc, spec, err);
    if (st)
        return st;
    q->N = srl__chk_seeds(o, quick, full);
    q->err = malloc(q->N * sizeof *q->err);
    if (!q->err)
        return srl_err_set(err, SRL_ENOMEM, "T17: out of memory");
    return srl__chk_parallel(q->N, sum_item, q, err);
}

int srl__chk_sum_var_bound(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    const bool pw = row->params.pairwise;
    sum_job *q = calloc(1, sizeof *q);
    if (!q)
        return srl_err_set(err, SRL_ENOMEM, "T17: out of memory");
    int st = sum_runs(q, pw, o, 2000, 8000, err);
    if (!st) {
        for (uint64_t s = 0; s < q->N; s++)
            q->err[s] *= q->err[s];
        double mean, var;
        srl__chk_mean_var(&mean, &var, q->err, q->N);
        const double u = 0x1p-8;
        double B = pw ? srl_t17_var_pairwise(q->x, T17_N, u)
                      : srl_t17_var_recursive(q->x, T17_N, u);
        if (o->mutation == SRL_CHECK_MUT_PREDICTION)
            B /= 16; /* the bound of a format two bits more precise */
        const double se = sqrt(var / (double)q->N);
        const double t = srl__chk_t(SRL_CHECK_ALPHA, (double)q->N - 1);
        const double mde = B + (t + Z99) * se;
        srl__chk_result_begin(out, row->check.id,
                              "E (s - S)^2 of %s bf16 sr summation of %d terms k/256 (S = %.6g), "
                              "seeds 1-%llu; predicted bound V <= u^2 sum (1 + u^2)^. S_node^2; "
                              "MDE %.3g (%.2f x measured)",
                              pw ? "pairwise" : "recursive", T17_N, q->S,
                              (unsigned long long)q->N, mde, mde / mean);
        srl__chk_result_set(out, SRL_CHECK_BOUND, mean, mean - t * se, mean + t * se, B);
    }
    free(q->err);
    free(q);
    return st;
}

int srl__chk_sum_chebyshev(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    sum_job *q = calloc(1, sizeof *q);
    if (!q)
        return srl_err_set(err, SRL_ENOMEM, "T17: out of memory");
    int st = sum_runs(q, false, o, 2000, 8000, err);
    if (!st) {
        const double lim = 2 * sqrt(srl_t17_var_recursive(q->x, T17_N, 0x1p-8));
        uint64_t k = 0;
        for (uint64_t s = 0; s < q->N; s++)
            k += fabs(q->err[s]) >= lim;
        double lo, hi;
        srl_check_clopper_pearson(&lo, &hi, k, q->N, SRL_CHECK_ALPHA);
        const double pred = 0.25;
        srl__chk_result_begin(out, row->check.id,
                              "share of seeds with |s - S| >= 2 sqrt(V) (recursive bf16 sr sum "
                              "of %d terms, as T17a), seeds 1-%llu; predicted <= 1/4 "
                              "(Bienayme-Chebyshev)",
                              T17_N, (unsigned long long)q->N);
        srl__chk_result_set(out, SRL_CHECK_BOUND, (double)k / (double)q->N, lo, hi, pred);
    }
    free(q->err);
    free(q);
    return st;
}
