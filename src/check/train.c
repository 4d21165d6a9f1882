/* src/check/train.c: the checks of training in emulated precision (theory/T05-T13), through the
 * training runners of `srlab train` (quad1d, quadratic: src/problems/convex.c; mlp with
 * replicas: src/problems/mlp.c, src/problems/models_train.c) and, for T08b and T13, the optimizer and
 * allocation API directly (include/srlab/optim.h). Predictions: include/srlab/theory.h (T05-T09,
 * T13), include/srlab/theory.h (T10), and the mlp runner's replica_d2_pred column (T12).
 *
 *   T05a-e  gradient descent on a/2 (x - x*)^2: RN stall band and exact stall point; SR mean
 *           iterate (T05 step 3) and SR floor at two learning rates (step 4).
 *   T06a-b  noisy SGD: the relative SR penalty at two learning rates, paired SR/fp32 runs on the
 *           same seeds (common gradient noise), a ratio estimator with a delta-method interval.
 *   T07a-b  the SR walk: the pooled move rate (Binomial) and the pooled cover time (negative
 *           binomial), both with exact intervals.
 *   T08a-c  decoupled weight decay: lost under RN at and below 2^-9 (exact); the lost fraction of
 *           a binade (exact, one optimizer step on all 128 significands); applied in mean
 *           under SR.
 *   T09a-b  bf16 second moment under RN: never decreases; rises iff g^2 > r(v) v (exact outside
 *           the binary32 arithmetic's margin).
 *   T10a-c  Adam: the SR term of the relative penalty at two learning rates; RN's bias (frozen
 *           iterate) below the freeze learning rate.
 *   T11a    the mean SR trajectory on a quadratic equals the exact one (per-seed deviations from
 *           a binary64 reference run of the same problem).
 *   T12a-b  data-parallel replicas: shared SR streams keep them identical; independent streams
 *           drift with E||x_r - x_0||^2 equal to the runner's random-walk prediction.
 *   T13a-f  bytes per parameter actually allocated, against the T13 table.
 * Seeds 1 .. N; training runs derive every stream from their seed (include/srlab/run.h). */
#include "check/check_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/optim.h"
#include "srlab/rounding.h"
#include "srlab/strategy.h"
#include "srlab/theory.h"

#define U32 0x1p-24 /* unit roundoff of binary32, the update arithmetic of the fp32 strategies */

static const srl_format *bf16(void)
{
    return srl_format_find("bf16");
}

/* ---- paired runs over seeds, reduced to a few numbers per seed ---- */

typedef struct tjob tjob;
/* rows[0 .. nkv-1]: the runs of the configs kv[] on one seed; out: nout values for the seed */
typedef int (*tjob_reduce)(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                           srl_err *err);
struct tjob {
    const char *problem;
    srl__chk_kv kv[2];
    int nkv;
    size_t nout;
    double *out; /* N x nout */
    tjob_reduce reduce;
    const void *ctx;
};

static int tjob_item(void *ctx, size_t i, srl_err *err)
{
    tjob *j = ctx;
    srl__chk_rows rows[2];
    memset(rows, 0, sizeof rows);
    int st = SRL_OK;
    for (int k = 0; k < j->nkv && !st; k++)
        st = srl__chk_run(&rows[k], SRL_RUN_TRAIN, j->problem, &j->kv[k], (uint64_t)i + 1, NULL,
                          NULL, err);
    if (!st)
        st = j->reduce(j, (uint64_t)i + 1, rows, j->out + i * j->nout, err);
    for (int k = 0; k < 2; k++)
        srl__chk_rows_free(&rows[k]);
    return st;
}

static int tjob_run(tjob *j, uint64_t N, srl_err *err)
{
    j->out = calloc((size_t)N * j->nout, sizeof *j->out);
    if (!j->out)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    return srl__chk_parallel((size_t)N, tjob_item, j, err);
}

/* Column k of the per-seed outputs, copied into a fresh array (NULL on failure). */
static double *tjob_col(const tjob *j, uint64_t N, size_t k)
{
    double *v = malloc((size_t)N * sizeof *v);
    if (v)
        for (uint64_t s = 0; s < N; s++)
            v[s] = j->out[s * j->nout + k];
    return v;
}

/* The average of column `name` over the rows with step > burn. */
static double late_mean(const srl__chk_rows *r, const char *name, double burn)
{
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (srl__chk_col(r, i, "step") > burn) {
            s += srl__chk_col(r, i, name);
            n++;
        }
    return n ? s / (double)n : NAN;
}

/* ---- T05: gradient descent on a quadratic ---- */

#define T05_A 1.0
#define T05_XS 0.3
#define T05_X0 1.0
#define T05_LR 0.01

/* The RN run of T05 (or SR for the mutation): final x after the stall step + 100. */
static int t05_rn_run(double *x, srl_t05_stall *pred, const srl_check_opts *o, srl_err *err)
{
    const srl_format *fp32 = srl_format_find("fp32");
    int st = srl_t05_rn_stall(pred, T05_A, T05_XS, T05_X0, T05_LR, bf16(), fp32, SRL_ARITH_FP32,
                              10000000);
    if (st)
        return srl_err_set(err, st, "srl_t05_rn_stall failed");
    const uint64_t steps = pred->step + 100;
    srl__chk_kv kv;
    srl__chk_kv_init(&kv);
    srl__chk_kv_set(&kv, "opt", "sgd");
    srl__chk_kv_set(&kv, "format", "bf16");
    srl__chk_kv_set(&kv, "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr" : "rn");
    srl__chk_kv_set(&kv, "a", "%.17g", T05_A);
    srl__chk_kv_set(&kv, "xstar", "%.17g", T05_XS);
    srl__chk_kv_set(&kv, "x0", "%.17g", T05_X0);
    srl__chk_kv_set(&kv, "lr", "%.17g", T05_LR);
    srl__chk_kv_set(&kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(&kv, "log-every", "%llu", (unsigned long long)steps);
    srl__chk_rows r;
    if ((st = srl__chk_run(&r, SRL_RUN_TRAIN, "quad1d", &kv, 1, NULL, NULL, err)))
        return st;
    *x = srl__chk_last(&r, "x");
    srl__chk_rows_free(&r);
    return SRL_OK;
}

int srl__chk_t05a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    double x;
    srl_t05_stall pred;
    int st = t05_rn_run(&x, &pred, o, err);
    if (st)
        return st;
    const double ulp = srl_format_ulp(bf16(), T05_XS);
    double D = srl_t05_stall_distance(T05_XS, T05_LR, T05_A, bf16());
    double q = ulp;
    if (o->mutation == SRL_CHECK_MUT_PREDICTION) {
        D /= 2;
        q /= 2;
    }
    /* T05 tolerance: the binary32 gradient and step (4 roundings of relative 2^-24) move the
     * freeze threshold by at most 4 u32 D */
    const double w = 4 * U32 * D, d = fabs(x - T05_XS);
    srl__chk_result_begin(
        out, "T05a",
        "RN stall distance |x_T - x*| of GD on a/2 (x - x*)^2 (bf16 "
        "rn weights, fp32 gradient and update, a 1, x* 0.3, x0 1, lr 0.01, %llu "
        "steps, deterministic); predicted band [D - ulp, D], D = ulp(x*)/(2 lr a)",
        (unsigned long long)(pred.step + 100));
    srl__chk_result_set(out, SRL_CHECK_BAND, d, D - q - w, D + w, D);
    return SRL_OK;
}

int srl__chk_t05b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    double x;
    srl_t05_stall pred;
    int st = t05_rn_run(&x, &pred, o, err);
    if (st)
        return st;
    srl__chk_result_begin(
        out, "T05b",
        "RN stall point x_T of GD (as T05a) against the fixed point "
        "of the rounded map iterated by srl_t05_rn_stall (reached after step %llu)",
        (unsigned long long)pred.step);
    srl__chk_result_set(out, SRL_CHECK_EXACT, x, x, x, pred.fixed ? pred.x : NAN);
    return SRL_OK;
}

/* T05c: x at every logged step */
#define T05C_STEPS 400
#define T05C_EVERY 50
#define T05C_K (T05C_STEPS / T05C_EVERY + 1)

static int t05c_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                       srl_err *err)
{
    (void)j;
    if (rows[0].n != T05C_K)
        return srl_err_set(err, SRL_EINVAL, "T05c seed %llu: %zu rows", (unsigned long long)seed,
                           rows[0].n);
    for (size_t i = 0; i < T05C_K; i++)
        out[i] = srl__chk_col(&rows[0], i, "x");
    return SRL_OK;
}

int srl__chk_t05c(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 400, 2000);
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "quad1d";
    j.nkv = 1;
    j.nout = T05C_K;
    j.reduce = t05c_reduce;
    srl__chk_kv *kv = &j.kv[0];
    srl__chk_kv_init(kv);
    srl__chk_kv_set(kv, "opt", "sgd");
    srl__chk_kv_set(kv, "strategy", "bf16-sr");
    srl__chk_kv_set(kv, "grad-format", "fp32");
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        srl__chk_kv_set(kv, "rounding", "rn");
    srl__chk_kv_set(kv, "a", "%.17g", T05_A);
    srl__chk_kv_set(kv, "xstar", "%.17g", T05_XS);
    srl__chk_kv_set(kv, "x0", "%.17g", T05_X0);
    srl__chk_kv_set(kv, "lr", "%.17g", T05_LR);
    srl__chk_kv_set(kv, "steps", "%d", T05C_STEPS);
    srl__chk_kv_set(kv, "log-every", "%d", T05C_EVERY);
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    /* T05 tolerance: Var(x_t) <= (q^2/4) / (1 - (1 - lr a)^2), q = 2^-8 the largest spacing on
     * the path (0.29, 1]; z at 1 - alpha/(2K) (Bonferroni over the K logged steps); the binary32
     * arithmetic's bias <= 3 u32 1.1 / (lr a) */
    const double q = 0x1p-8, c = 1 - T05_LR * T05_A;
    const double V = q * q / 4 / (1 - c * c);
    const double z = srl__chk_z(SRL_CHECK_ALPHA / T05C_K);
    const double b = 3 * U32 * 1.1 / (T05_LR * T05_A);
    const double half = z * sqrt(V / (double)N) + b;
    bool have = false;
    for (size_t k = 0; k < T05C_K; k++) {
        double s = 0;
        for (uint64_t i = 0; i < N; i++)
            s += j.out[i * T05C_K + k];
        const double mean = s / (double)N;
        const double x0 = srl_round(T05_X0, bf16(), SRL_ROUND_RN, NULL);
        const double gd = srl_t05_gd_iterate(T05_A, T05_XS, x0, T05_LR, k * T05C_EVERY);
        srl_check_result r;
        srl__chk_result_begin(
            &r, "T05c",
            "mean over seeds 1-%llu of x_t, GD on a/2 (x - x*)^2 with "
            "bf16-sr weights (sr:r=16 of fp32), a 1, x* 0.3, x0 1, lr 0.01, at t = "
            "%zu (worst of %d logged steps); predicted the exact GD iterate",
            (unsigned long long)N, k * T05C_EVERY, T05C_K);
        srl__chk_result_set(&r, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, gd);
        if (!have || !(r.margin >= out->margin)) {
            *out = r;
            have = true;
        }
    }
    free(j.out);
    return SRL_OK;
}

/* T05d, T05e: the SR floor, time-averaged per seed after the burn-in */
static int floor_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                        srl_err *err)
{
    (void)seed;
    (void)err;
    const double *burn = j->ctx;
    out[0] = late_mean(&rows[0], "loss_gap", *burn);
    return SRL_OK;
}

static int t05_floor(srl_check_result *out, const srl_check_opts *o, const char *id, double lr,
                     srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 100, 400);
    /* burn-in: the approach from x0 contracts by (1 - lr a) per step and the two-state chain
     * mixes at the same rate: 25/(lr a) steps leave e^-25 of either; then 100/(lr a) steps
     * logged every 1/(lr a) (successive logs correlated by e^-1) */
    const double burn = 25 / (lr * T05_A);
    const uint64_t every = (uint64_t)ceil(1 / (lr * T05_A));
    const uint64_t steps = (uint64_t)(burn + 100 / (lr * T05_A));
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "quad1d";
    j.nkv = 1;
    j.nout = 1;
    j.reduce = floor_reduce;
    j.ctx = &burn;
    srl__chk_kv *kv = &j.kv[0];
    srl__chk_kv_init(kv);
    srl__chk_kv_set(kv, "opt", "sgd");
    srl__chk_kv_set(kv, "strategy", "bf16-sr");
    srl__chk_kv_set(kv, "grad-format", "fp32");
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        srl__chk_kv_set(kv, "rounding", "rn");
    srl__chk_kv_set(kv, "a", "%.17g", T05_A);
    srl__chk_kv_set(kv, "xstar", "%.17g", T05_XS);
    srl__chk_kv_set(kv, "x0", "%.17g", T05_X0);
    srl__chk_kv_set(kv, "lr", "%.17g", lr);
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)every);
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    double mean, var;
    srl__chk_mean_var(&mean, &var, j.out, (size_t)N);
    free(j.out);
    const double half = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1)) * sqrt(var / (double)N);
    double pred = srl_t05_sr_floor(T05_A, T05_XS, bf16());
    if (o->mutation == SRL_CHECK_MUT_PREDICTION) { /* a uniform spread's ulp^2 a / 12 */
        const double q = srl_format_ulp(bf16(), T05_XS);
        pred = q * q * T05_A / 12;
    }
    srl__chk_result_begin(out, id,
                          "mean over seeds 1-%llu of the time-averaged loss_gap after %.0f "
                          "burn-in steps, GD with bf16-sr weights on a/2 (x - x*)^2, a 1, x* 0.3, "
                          "lr %g, %llu steps; predicted the SR floor (a/2)(x* - g0)(g1 - x*)",
                          (unsigned long long)N, burn, lr, (unsigned long long)steps);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, pred);
    return SRL_OK;
}

int srl__chk_t05d(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t05_floor(out, o, "T05d", 0.1, err);
}

int srl__chk_t05e(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t05_floor(out, o, "T05e", 0.01, err);
}

/* ---- T06 and T10a-b: the relative SR penalty, SR against fp32 on the same seeds ---- */

typedef struct penalty_ctx {
    double burn;
} penalty_ctx;

static int penalty_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                          srl_err *err)
{
    (void)seed;
    (void)err;
    const penalty_ctx *c = j->ctx;
    const double sr = late_mean(&rows[0], "loss_gap", c->burn);
    const double ex = late_mean(&rows[1], "loss_gap", c->burn);
    out[0] = sr - ex; /* the SR excess over the (nearly exact) fp32 run */
    out[1] = ex;
    return SRL_OK;
}

/* opt "sgd" (T06) or "adam" with beta1 = 0 (T10). */
static int penalty(srl_check_result *out, const srl_check_opts *o, const char *id, const char *opt,
                   double lr, srl_err *err)
{
    const bool adam = !strcmp(opt, "adam");
    const double a = 1, xs = 1.5, sigma = 1, beta2 = 0.999;
    const uint64_t N = srl__chk_seeds(o, 100, 400);
    penalty_ctx pc;
    /* burn-in: 10/(lr a) for the iterate (e^-20 of the start, which is x* anyway); Adam's v
     * also needs 5/(1 - beta2) steps to forget its start */
    pc.burn = fmax(10 / (lr * a), adam ? 5 / (1 - beta2) : 0);
    const uint64_t window = 20000, steps = (uint64_t)pc.burn + window;
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "quad1d";
    j.nkv = 2;
    j.nout = 2;
    j.reduce = penalty_reduce;
    j.ctx = &pc;
    for (int k = 0; k < 2; k++) {
        srl__chk_kv *kv = &j.kv[k];
        srl__chk_kv_init(kv);
        srl__chk_kv_set(kv, "opt", "%s", opt);
        if (adam) {
            srl__chk_kv_set(kv, "beta1", "0");
            srl__chk_kv_set(kv, "beta2", "%.17g", beta2);
        }
        srl__chk_kv_set(kv, "a", "%.17g", a);
        srl__chk_kv_set(kv, "xstar", "%.17g", xs);
        srl__chk_kv_set(kv, "x0", "%.17g", xs);
        srl__chk_kv_set(kv, "lr", "%.17g", lr);
        srl__chk_kv_set(kv, "grad-noise", "%.17g", sigma);
        srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
        srl__chk_kv_set(kv, "log-every", "10");
    }
    /* run 0: bf16 weights written with sr (the mutation: rn), everything else fp32; run 1: fp32 */
    srl__chk_kv_set(&j.kv[0], "format", "bf16");
    srl__chk_kv_set(&j.kv[0], "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr");
    srl__chk_kv_set(&j.kv[1], "strategy", "fp32");
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    double *D = tjob_col(&j, N, 0), *E = tjob_col(&j, N, 1);
    free(j.out);
    if (!D || !E) {
        free(D);
        free(E);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    double md, vd, me, ve;
    srl__chk_mean_var(&md, &vd, D, (size_t)N);
    srl__chk_mean_var(&me, &ve, E, (size_t)N);
    const double R = md / me;
    /* the ratio estimator's variance by the delta method: Var(D - R E) / (N mean(E)^2) */
    for (uint64_t s = 0; s < N; s++)
        D[s] -= R * E[s];
    double m0, v0;
    srl__chk_mean_var(&m0, &v0, D, (size_t)N);
    free(D);
    free(E);
    const double half = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1)) * sqrt(v0 / (double)N) / me;
    const double ulp = srl_format_ulp(bf16(), xs);
    const double k6 = o->mutation == SRL_CHECK_MUT_PREDICTION ? 4.0 / 6.0 : 1.0;
    double pred, model = 0;
    if (!adam) {
        pred = srl_t06_relative_penalty(lr, ulp, sigma) / k6;
    } else {
        /* T10 step 4: Adam with beta1 = 0 is SGD with lr / sigma_g; the neglected effects of
         * v_hat's fluctuation are below 2 (1 - beta2) relative */
        pred = srl_t10_adam_relative_penalty(lr, ulp, a, sigma) / k6;
        model = 2 * (1 - beta2) * pred;
    }
    srl__chk_result_begin(out, id,
                          "relative SR penalty (mean loss_gap bf16-sr - fp32) / fp32 of %s%s "
                          "on a/2 (x - x*)^2 + gradient noise sigma 1, x* 1.5, lr %g, paired seeds "
                          "1-%llu, %llu steps after %.0f burn-in; predicted ulp^2/(6 lr^2%s)",
                          adam ? "Adam" : "SGD", adam ? " (beta1 0, beta2 0.999)" : "", lr,
                          (unsigned long long)N, (unsigned long long)window, pc.burn,
                          adam ? "" : " sigma^2");
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, R, R - half - model, R + half + model, pred);
    return SRL_OK;
}

int srl__chk_t06a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return penalty(out, o, "T06a", "sgd", 0.01, err);
}

int srl__chk_t06b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return penalty(out, o, "T06b", "sgd", 0.005, err);
}

int srl__chk_t10a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return penalty(out, o, "T10a", "adam", 0.01, err);
}

int srl__chk_t10b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return penalty(out, o, "T10b", "adam", 0.005, err);
}

/* ---- T07: the SR walk ---- */

#define T07_XS (-1e6)
#define T07_X0 1.5
#define T07_P 0.01 /* the move probability per step */

/* The learning rate that makes the step lr |g(x0)| one hundredth of ulp(x0). */
static double t07_lr(void)
{
    return T07_P * srl_format_ulp(bf16(), T07_X0) / (T07_X0 - T07_XS);
}

static void t07_kv(srl__chk_kv *kv, const char *rounding, uint64_t steps, uint64_t every)
{
    srl__chk_kv_init(kv);
    srl__chk_kv_set(kv, "opt", "sgd");
    srl__chk_kv_set(kv, "format", "bf16");
    srl__chk_kv_set(kv, "rounding", "%s", rounding);
    srl__chk_kv_set(kv, "grad-format", "fp64");
    srl__chk_kv_set(kv, "update-arith", "fp64");
    srl__chk_kv_set(kv, "a", "1");
    srl__chk_kv_set(kv, "xstar", "%.17g", T07_XS);
    srl__chk_kv_set(kv, "x0", "%.17g", T07_X0);
    srl__chk_kv_set(kv, "lr", "%.17g", t07_lr());
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)every);
}

/* moves = (x0 - x_T) / ulp, within the binade [1, 2) */
static int moves_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                        srl_err *err)
{
    (void)j;
    const double ulp = srl_format_ulp(bf16(), T07_X0), x = srl__chk_last(&rows[0], "x");
    if (!(x >= 1 && x <= T07_X0))
        return srl_err_set(err, SRL_EINVAL,
                           "T07 seed %llu: the walk left [1, 1.5] (x = %g): "
                           "the check's design assumes one binade",
                           (unsigned long long)seed, x);
    out[0] = (T07_X0 - x) / ulp;
    return SRL_OK;
}

/* The relative change of p over the walk: |g| changes by at most (distance walked) / |x0 - x*|
 * with the walk inside [1, 1.5]. */
static double t07_drift(void)
{
    return 0.5 / (T07_X0 - T07_XS);
}

int srl__chk_t07a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 50, 200), T = 2000;
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "quad1d";
    j.nkv = 1;
    j.nout = 1;
    j.reduce = moves_reduce;
    t07_kv(&j.kv[0], o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr", T, T);
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    double M = 0;
    for (uint64_t s = 0; s < N; s++)
        M += j.out[s];
    free(j.out);
    /* T07 item 2: the moves of all seeds and steps are Bernoulli(p) trials: Binomial(N T, p) */
    double lo, hi;
    const uint64_t n = N * T;
    srl_check_clopper_pearson(&lo, &hi, (uint64_t)M, n, SRL_CHECK_ALPHA);
    const double ulp = srl_format_ulp(bf16(), T07_X0), lr = t07_lr();
    const double p = srl_t07_move_prob(lr, T07_X0 - T07_XS, ulp), dr = t07_drift();
    srl__chk_result_begin(
        out, "T07a",
        "mean steps per move (N T / moves) of bf16 sr GD with a "
        "constant step lr |g| = ulp/100 (exact sr, binary64 update), seeds 1-%llu, "
        "%llu steps each, %.0f moves; predicted ulp/(lr |g|)",
        (unsigned long long)N, (unsigned long long)T, M);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, M > 0 ? (double)n / M : INFINITY, (1 - dr) / hi,
                        lo > 0 ? (1 + dr) / lo : INFINITY, 1 / p);
    return SRL_OK;
}

#define T07B_K 8 /* spacings to cover */

static int cover_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                        srl_err *err)
{
    (void)j;
    (void)seed;
    (void)err;
    const double ulp = srl_format_ulp(bf16(), T07_X0), target = T07_X0 - T07B_K * ulp;
    out[0] = INFINITY; /* not covered within the run */
    for (size_t i = 0; i < rows[0].n; i++)
        if (srl__chk_col(&rows[0], i, "x") <= target) {
            out[0] = srl__chk_col(&rows[0], i, "step");
            break;
        }
    return SRL_OK;
}

int srl__chk_t07b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 50, 200);
    /* the cover time is negative binomial, mean K/p = 800 and sd sqrt(K (1-p))/p = 281: 4000
     * steps leave it uncovered with probability below 10^-9 per seed */
    const uint64_t T = 4000;
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "quad1d";
    j.nkv = 1;
    j.nout = 1;
    j.reduce = cover_reduce;
    t07_kv(&j.kv[0], o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr:r=4" : "sr", T, 1);
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    double S = 0;
    for (uint64_t s = 0; s < N; s++)
        S += j.out[s];
    free(j.out);
    const double ulp = srl_format_ulp(bf16(), T07_X0), lr = t07_lr();
    const double p = srl_t07_move_prob(lr, T07_X0 - T07_XS, ulp), dr = t07_drift();
    double cmean, csd;
    srl_t07_cover_steps(&cmean, &csd, T07B_K * ulp, ulp, p);
    double measured = S / (double)N, lo = INFINITY, hi = INFINITY;
    if (isfinite(S)) {
        /* T07 item 3: the total S of N independent cover times is the number of Bernoulli(p)
         * trials until the r = N K-th success, and P(S <= s) = P(Binomial(s, p) >= r): the exact
         * interval of p, inverted into one of the mean cover time K/p */
        const uint64_t r = N * T07B_K, s = (uint64_t)S;
        double plo = 0, phi = 1;
        for (int it = 0; it < 200; it++) { /* P(S <= s; p) = alpha/2, increasing in p */
            const double m = 0.5 * (plo + phi);
            if (srl_check_binom_upper(r, s, m) < SRL_CHECK_ALPHA / 2)
                plo = m;
            else
                phi = m;
        }
        const double pl = plo;
        plo = 0, phi = 1;
        for (int it = 0; it < 200; it++) { /* P(S >= s; p) = P(Bin(s-1, p) <= r-1) = alpha/2 */
            const double m = 0.5 * (plo + phi);
            if (srl_check_binom_lower(r - 1, s - 1, m) < SRL_CHECK_ALPHA / 2)
                phi = m;
            else
                plo = m;
        }
        const double ph = phi;
        lo = T07B_K / ph * (1 - dr);
        hi = T07B_K / pl * (1 + dr);
    }
    srl__chk_result_begin(out, "T07b",
                          "mean steps to cover %d spacings of bf16 sr GD with constant "
                          "step lr |g| = ulp/100 (as T07a), seeds 1-%llu (%llu steps each); "
                          "predicted K ulp/(lr |g|) (negative binomial, sd %.0f per seed)",
                          T07B_K, (unsigned long long)N, (unsigned long long)T, csd);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, measured, lo, hi, cmean);
    return SRL_OK;
}

/* ---- T08: weight decay ---- */

int srl__chk_t08a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    /* lr wd = 2^-10 and exactly 2^-9 (lr, wd powers of two: exact in binary32) */
    static const double lrs[] = {0x1p-6, 0x1p-5};
    static const double x0s[] = {1, 1.3671875, -0.80078125, 3, 0x1p-20, 100.5, -1.9921875};
    const size_t nx = sizeof x0s / sizeof x0s[0];
    const uint64_t steps = 50;
    uint64_t moved = 0, cases = 0;
    for (size_t a = 0; a < 2; a++)
        for (size_t i = 0; i < nx; i++) {
            srl__chk_kv kv;
            srl__chk_kv_init(&kv);
            srl__chk_kv_set(&kv, "opt", "adamw");
            srl__chk_kv_set(&kv, "strategy",
                            o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "bf16-sr" : "bf16-rn");
            srl__chk_kv_set(&kv, "a", "0");
            srl__chk_kv_set(&kv, "xstar", "0");
            srl__chk_kv_set(&kv, "x0", "%.17g", x0s[i]);
            srl__chk_kv_set(&kv, "lr", "%.17g", lrs[a]);
            srl__chk_kv_set(&kv, "wd", "%.17g", 0x1p-4);
            srl__chk_kv_set(&kv, "steps", "%llu", (unsigned long long)steps);
            srl__chk_kv_set(&kv, "log-every", "1");
            srl__chk_rows r;
            int st = srl__chk_run(&r, SRL_RUN_TRAIN, "quad1d", &kv, 1, NULL, NULL, err);
            if (st)
                return st;
            for (size_t k = 1; k < r.n; k++) {
                cases++;
                /* lost: the stored x is unchanged, and the step reports it lost */
                moved += srl__chk_col(&r, k, "x") != x0s[i] ||
                         srl__chk_col(&r, k, "lost_update_frac") != 1;
            }
            srl__chk_rows_free(&r);
        }
    srl__chk_result_begin(
        out, "T08a",
        "decay steps that changed x, of %llu (AdamW with a flat loss, "
        "bf16-rn, lr wd = 2^-10 and = 2^-9, %zu values of x0 incl. powers of two, "
        "%llu steps each, deterministic); predicted 0 (lost for every x)",
        (unsigned long long)cases, nx, (unsigned long long)steps);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)moved, (double)moved, (double)moved, 0.0);
    return SRL_OK;
}

int srl__chk_t08b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const srl_format *f = bf16();
    const size_t n = (size_t)1 << (f->p - 1);  /* the significands of the binade [1, 2) */
    const double lr = 0x1p-5, wd = 3 * 0x1p-5; /* lr wd = 3 2^-10 in (2^-9, 2^-8) */
    srl_strategy s;
    int st = srl_strategy_preset(&s, "bf16-rn", err);
    if (st)
        return st;
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        s.param.mode = (srl_rounding){SRL_RZ, 0};
    srl_weight_spec spec = {"x", 1, {n, 0, 0, 0}};
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str("T08b"));
    srl_weights W;
    if ((st = srl_weights_alloc(&W, &spec, 1, &s, SRL_OPTIM_ADAMW, &root, err)))
        return st;
    double *x0 = malloc(n * sizeof *x0), *g = calloc(n, sizeof *g), *x1 = malloc(n * sizeof *x1);
    if (!x0 || !g || !x1) {
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        x0[i] = ldexp((double)(n + i), 1 - f->p); /* M 2^(1-p), M = 2^(p-1) .. 2^p - 1 */
    if ((st = srl_weights_init(&W, 0, x0, err)) || (st = srl_weights_set_grad_d(&W, 0, g, 1)))
        goto done;
    srl_optim_config c;
    memset(&c, 0, sizeof c);
    c.kind = SRL_OPTIM_ADAMW;
    c.lr = lr;
    c.beta1 = 0.9;
    c.beta2 = 0.999;
    c.eps = 1e-8;
    c.wd = wd;
    c.schedule = SRL_SCHED_CONSTANT;
    c.steps = 1;
    srl_step_stats ss;
    if ((st = srl_optim_step(&ss, &W, &c, 1, lr))) {
        srl_err_set(err, st, "srl_optim_step failed");
        goto done;
    }
    srl_weights_values(x1, &W, 0);
    /* every element's outcome against T08's exact decision, and the count */
    uint64_t disagree = 0;
    for (size_t i = 0; i < n; i++)
        disagree += (x1[i] == x0[i]) != srl_t08_rn_decay_lost(x0[i], lr * wd, f);
    const double meas = (double)ss.lost / (double)n, pred = srl_t08_lost_fraction(lr * wd, f);
    srl__chk_result_begin(
        out, "T08b",
        "fraction of the %zu bf16 values of [1, 2) whose decay step "
        "(AdamW, zero gradient, lr wd = 3 2^-10, bf16-rn, one step) is lost; %llu "
        "values disagree with the exact per-value decision; predicted by "
        "srl_t08_lost_fraction",
        n, (unsigned long long)disagree);
    srl__chk_result_set(out, SRL_CHECK_EXACT, meas, meas, meas, pred);
    if (disagree) {
        out->pass = false;
        out->margin = fmin(out->margin, -(double)disagree / (double)n);
    }
done:
    free(x0);
    free(g);
    free(x1);
    srl_weights_free(&W);
    return st;
}

static int xlast_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                        srl_err *err)
{
    (void)j;
    (void)seed;
    (void)err;
    out[0] = srl__chk_last(&rows[0], "x");
    return SRL_OK;
}

int srl__chk_t08c(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 100, 400), T = 1000;
    const double lr = 1e-3, wd = 0.1, x0 = 1;
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "quad1d";
    j.nkv = 1;
    j.nout = 1;
    j.reduce = xlast_reduce;
    srl__chk_kv *kv = &j.kv[0];
    srl__chk_kv_init(kv);
    srl__chk_kv_set(kv, "opt", "adamw");
    srl__chk_kv_set(kv, "strategy",
                    o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "bf16-rn" : "bf16-sr");
    srl__chk_kv_set(kv, "a", "0");
    srl__chk_kv_set(kv, "xstar", "0");
    srl__chk_kv_set(kv, "x0", "%.17g", x0);
    srl__chk_kv_set(kv, "lr", "%.17g", lr);
    srl__chk_kv_set(kv, "wd", "%.17g", wd);
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)T);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)T);
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    double mean, var;
    srl__chk_mean_var(&mean, &var, j.out, (size_t)N);
    free(j.out);
    /* T08 tolerance: Var(x_T) <= T q^2 / 4 (q = 2^-8 on (0.5, 1]), plus 3 u32 T for the binary32
     * arithmetic's roundings */
    const double q = 0x1p-8;
    const double half =
        srl__chk_z(SRL_CHECK_ALPHA) * sqrt((double)T * q * q / 4 / (double)N) + 3 * U32 * (double)T;
    const double pred = x0 * pow(1 - lr * wd, (double)T);
    srl__chk_result_begin(out, "T08c",
                          "mean over seeds 1-%llu of x_T after T = %llu AdamW decay "
                          "steps (flat loss, bf16-sr, lr 1e-3, wd 0.1, x0 1); predicted x0 (1 - lr "
                          "wd)^T",
                          (unsigned long long)N, (unsigned long long)T);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, pred);
    return SRL_OK;
}

/* ---- T09: the bf16 second moment ---- */

typedef struct vtrack {
    double vprev, beta2;
    bool ratio_one; /* the mutated prediction r(v) = 1 */
    uint64_t falls, rises, bad, near, judged;
} vtrack;

static int vtrack_hook(void *arg, const srl_weights *W, uint64_t t, const srl_step_stats *st)
{
    (void)st;
    vtrack *k = arg;
    double v, g;
    srl_tensor_get_d(&v, W->p[0].v, 0, 1);
    srl_tensor_get_d(&g, W->p[0].g, 0, 1);
    const double vp = k->vprev;
    k->vprev = v;
    if (t == 1 || !(vp > 0))
        return 0; /* v_0 = 0 is not a normal value */
    k->falls += v < vp;
    k->rises += v > vp;
    srl_t09 p;
    if (srl_t09_second_moment(&p, vp, k->beta2, &W->p[0].v->fmt) != SRL_OK)
        return 0;
    /* T09 tolerance: the binary32 update v' = b2 v + (c2 g) g carries at most 4 roundings of
     * relative u32 (hyper-parameters included), which moves the threshold on g^2 by at most
     * 4 u32 (b2 v + c2 g^2) / c2; steps that close are counted, not judged */
    const double c2 = 1 - k->beta2;
    const double margin = 4 * U32 * (k->beta2 * vp + c2 * g * g) / c2;
    const double thr = (k->ratio_one ? 1.0 : p.rise_ratio) * vp;
    if (fabs(g * g - thr) <= margin) {
        k->near++;
        return 0;
    }
    k->judged++;
    k->bad += (v > vp) != (g * g > thr);
    return 0;
}

typedef struct t09job {
    srl__chk_kv kv;
    vtrack *tr;
} t09job;

static int t09_item(void *ctx, size_t i, srl_err *err)
{
    t09job *j = ctx;
    return srl__chk_run(NULL, SRL_RUN_TRAIN, "quad1d", &j->kv, (uint64_t)i + 1, vtrack_hook,
                        &j->tr[i], err);
}

static int t09_run(vtrack *sum, const srl_check_opts *o, uint64_t N, uint64_t steps, srl_err *err)
{
    t09job j;
    srl__chk_kv_init(&j.kv);
    srl__chk_kv_set(&j.kv, "opt", "adam");
    srl__chk_kv_set(&j.kv, "beta2", "0.999");
    srl__chk_kv_set(&j.kv, "strategy",
                    o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "fp32" : "bf16-rn");
    srl__chk_kv_set(&j.kv, "a", "0");
    srl__chk_kv_set(&j.kv, "grad-noise", "1");
    srl__chk_kv_set(&j.kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(&j.kv, "log-every", "%llu", (unsigned long long)steps);
    j.tr = calloc((size_t)N, sizeof *j.tr);
    if (!j.tr)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < N; i++) {
        j.tr[i].beta2 = 0.999;
        j.tr[i].ratio_one = o->mutation == SRL_CHECK_MUT_PREDICTION;
    }
    int st = srl__chk_parallel((size_t)N, t09_item, &j, err);
    memset(sum, 0, sizeof *sum);
    for (uint64_t i = 0; i < N; i++) {
        sum->falls += j.tr[i].falls;
        sum->rises += j.tr[i].rises;
        sum->bad += j.tr[i].bad;
        sum->near += j.tr[i].near;
        sum->judged += j.tr[i].judged;
    }
    free(j.tr);
    return st;
}

int srl__chk_t09a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 2, 5), steps = 5000;
    vtrack s;
    int st = t09_run(&s, o, N, steps, err);
    if (st)
        return st;
    srl__chk_result_begin(out, "T09a",
                          "decreases of the stored second moment v in %llu Adam steps "
                          "(beta2 0.999, bf16-rn, gradient = noise of sd 1) x seeds 1-%llu (%llu "
                          "rises); predicted 0",
                          (unsigned long long)steps, (unsigned long long)N,
                          (unsigned long long)s.rises);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)s.falls, (double)s.falls, (double)s.falls,
                        0.0);
    return SRL_OK;
}

int srl__chk_t09b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 2, 5), steps = 5000;
    vtrack s;
    int st = t09_run(&s, o, N, steps, err);
    if (st)
        return st;
    srl__chk_result_begin(out, "T09b",
                          "steps whose rise/no-rise of v contradicts g^2 > r(v) v, "
                          "r(v) = 1 + ulp(v)/(2 (1 - beta2) v), of %llu judged (%llu rises; %llu "
                          "within the binary32 margin, not judged), runs as T09a; predicted 0",
                          (unsigned long long)s.judged, (unsigned long long)s.rises,
                          (unsigned long long)s.near);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)s.bad, (double)s.bad, (double)s.bad, 0.0);
    return SRL_OK;
}

/* ---- T10c: Adam with RN below the freeze learning rate ---- */

int srl__chk_t10c(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    /* x0 = 1.5 in every coordinate: the gaps to both neighbours are ulp = 2^-7; with a constant
     * gradient (a frozen iterate), m_hat / sqrt(v_hat) = 1 up to the binary32 moments' roundings,
     * so every step is lr (1 +- 10^-4) < ulp/2 = 2^-8 for lr = 0.003 (T10 step 5) */
    const double lr = 0.003, x0 = 1.5;
    const double freeze = srl_t10_rn_freeze_lr(x0, bf16(), 3e-4);
    if (!(lr < freeze))
        return srl_err_set(err, SRL_EINVAL, "T10c: lr %g is not below the freeze lr %g", lr,
                           freeze);
    const uint64_t steps = 2000;
    double ratio[2];
    for (int k = 0; k < 2; k++) {
        const bool sr = (k == 1) != (o->mutation == SRL_CHECK_MUT_EXPERIMENT);
        srl__chk_kv kv;
        srl__chk_kv_init(&kv);
        srl__chk_kv_set(&kv, "opt", "adam");
        srl__chk_kv_set(&kv, "format", "bf16");
        srl__chk_kv_set(&kv, "rounding", sr ? "sr" : "rn");
        srl__chk_kv_set(&kv, "d", "16");
        srl__chk_kv_set(&kv, "kappa", "10");
        srl__chk_kv_set(&kv, "x0", "%.17g", x0);
        srl__chk_kv_set(&kv, "lr", "%.17g", lr);
        srl__chk_kv_set(&kv, "steps", "%llu", (unsigned long long)steps);
        srl__chk_kv_set(&kv, "log-every", "%llu", (unsigned long long)steps);
        srl__chk_rows r;
        int st = srl__chk_run(&r, SRL_RUN_TRAIN, "quadratic", &kv, 1, NULL, NULL, err);
        if (st)
            return st;
        ratio[k] = srl__chk_last(&r, "loss_gap") / srl__chk_col(&r, 0, "loss_gap");
        srl__chk_rows_free(&r);
    }
    srl__chk_result_begin(
        out, "T10c",
        "loss_gap(T) / loss_gap(0) of Adam (beta1 0.9, beta2 0.999) "
        "with bf16 rn weights on a quadratic (d 16, kappa 10, x0 1.5, seed 1), lr "
        "0.003 below the freeze lr %.6g, T = %llu: the RN bias term; predicted 1 (no "
        "progress, for any T); SR at the same lr reaches %.3g",
        freeze, (unsigned long long)steps, ratio[1]);
    srl__chk_result_set(out, SRL_CHECK_EXACT, ratio[0], ratio[0], ratio[0], 1.0);
    return SRL_OK;
}

/* ---- T11a: the mean SR trajectory on a quadratic is exact ---- */

#define T11_D 8
#define T11_STEPS 100
#define T11_EVERY 10
#define T11_K (T11_STEPS / T11_EVERY)
#define T11_LR 0.05

typedef struct xcap {
    double x[T11_K][T11_D];
    double xmax;
} xcap;

static int xcap_hook(void *arg, const srl_weights *W, uint64_t t, const srl_step_stats *st)
{
    (void)st;
    xcap *c = arg;
    if (t % T11_EVERY)
        return 0;
    double x[T11_D];
    srl_weights_values(x, W, 0);
    for (int i = 0; i < T11_D; i++) {
        c->x[t / T11_EVERY - 1][i] = x[i];
        c->xmax = fmax(c->xmax, fabs(x[i]));
    }
    return 0;
}

typedef struct t11job {
    srl__chk_kv kv[2];
    double *dev;  /* N x K x D: sign-normalised deviation of the SR run from the reference */
    double *xmax; /* N */
} t11job;

static int t11_item(void *ctx, size_t i, srl_err *err)
{
    t11job *j = ctx;
    xcap *c = calloc(2, sizeof *c);
    if (!c)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    int st = SRL_OK;
    for (int k = 0; k < 2 && !st; k++)
        st = srl__chk_run(NULL, SRL_RUN_TRAIN, "quadratic", &j->kv[k], (uint64_t)i + 1, xcap_hook,
                          &c[k], err);
    if (!st) {
        /* sign(x0 - x*_i) = -sign(x*_i) (x0 = 0), read from the reference's last logged
         * value, which is within (1 - lr lambda_min)^100 = 0.6% of x*_i */
        for (int t = 0; t < T11_K; t++)
            for (int d = 0; d < T11_D; d++) {
                const double sgn = c[1].x[T11_K - 1][d] > 0 ? -1.0 : 1.0;
                j->dev[((size_t)i * T11_K + (size_t)t) * T11_D + (size_t)d] =
                    (c[0].x[t][d] - c[1].x[t][d]) * sgn;
            }
        j->xmax[i] = fmax(c[0].xmax, c[1].xmax);
    }
    free(c);
    return st;
}

int srl__chk_t11a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 200, 800);
    t11job j;
    for (int k = 0; k < 2; k++) {
        srl__chk_kv *kv = &j.kv[k];
        srl__chk_kv_init(kv);
        srl__chk_kv_set(kv, "opt", "sgd");
        srl__chk_kv_set(kv, "d", "%d", T11_D);
        srl__chk_kv_set(kv, "kappa", "10");
        srl__chk_kv_set(kv, "basis", "diag");
        srl__chk_kv_set(kv, "x0", "0");
        srl__chk_kv_set(kv, "lr", "%.17g", T11_LR);
        srl__chk_kv_set(kv, "steps", "%d", T11_STEPS);
        srl__chk_kv_set(kv, "log-every", "%d", T11_STEPS);
    }
    /* run 0: bf16 weights written with exact sr (fp32 gradient and update); run 1: the binary64
     * reference (weights, gradient and update in binary64, rn) */
    srl__chk_kv_set(&j.kv[0], "format", "bf16");
    srl__chk_kv_set(&j.kv[0], "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr");
    srl__chk_kv_set(&j.kv[1], "format", "fp64");
    srl__chk_kv_set(&j.kv[1], "grad-format", "fp64");
    srl__chk_kv_set(&j.kv[1], "update-arith", "fp64");
    j.dev = malloc((size_t)N * T11_K * T11_D * sizeof *j.dev);
    j.xmax = malloc((size_t)N * sizeof *j.xmax);
    double *col = malloc((size_t)N * sizeof *col);
    int st = SRL_OK;
    if (!j.dev || !j.xmax || !col)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    if (!st)
        st = srl__chk_parallel((size_t)N, t11_item, &j, err);
    if (!st) {
        double X = 0;
        for (uint64_t s = 0; s < N; s++)
            X = fmax(X, j.xmax[s]);
        /* T11 tolerance: Student t at 1 - alpha/(K d) (Bonferroni over steps and coordinates)
         * on the seeds' deviations (independent, mean 0 by T11 step 1), plus the bias of the
         * binary32 gradient and update: at most 3 u32 (X + 1) per step through the contraction
         * 1 - lr lambda_min, lambda_min = 1 */
        const double tq = srl__chk_t(SRL_CHECK_ALPHA / (T11_K * T11_D), (double)(N - 1));
        const double b = 3 * U32 * (X + 1) / (T11_LR * 1.0);
        bool have = false;
        for (int t = 0; t < T11_K; t++)
            for (int d = 0; d < T11_D; d++) {
                for (uint64_t s = 0; s < N; s++)
                    col[s] = j.dev[((size_t)s * T11_K + (size_t)t) * T11_D + (size_t)d];
                double mean, var;
                srl__chk_mean_var(&mean, &var, col, (size_t)N);
                const double half = tq * sqrt(var / (double)N) + b;
                srl_check_result r;
                srl__chk_result_begin(
                    &r, "T11a",
                    "mean over seeds 1-%llu of (x_t,i of GD with bf16 "
                    "sr weights) - (x_t,i of the binary64 run of the same problem), "
                    "signed toward x0, quadratic d %d, eigenvalues 1..10, lr %g, t = "
                    "%d, i = %d (worst of %d); predicted 0",
                    (unsigned long long)N, T11_D, T11_LR, (t + 1) * T11_EVERY, d, T11_K * T11_D);
                srl__chk_result_set(&r, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, 0.0);
                if (!have || !(r.margin >= out->margin)) {
                    *out = r;
                    have = true;
                }
            }
    }
    free(j.dev);
    free(j.xmax);
    free(col);
    return st;
}

/* ---- T12: replicas ---- */

static void t12_kv(srl__chk_kv *kv, bool shared, uint64_t steps, uint64_t every)
{
    srl__chk_kv_init(kv);
    srl__chk_kv_set(kv, "task", "teacher");
    srl__chk_kv_set(kv, "depth", "1");
    srl__chk_kv_set(kv, "width", "16");
    srl__chk_kv_set(kv, "in-dim", "4");
    srl__chk_kv_set(kv, "out-dim", "2");
    srl__chk_kv_set(kv, "samples", "256");
    srl__chk_kv_set(kv, "val-samples", "64");
    srl__chk_kv_set(kv, "batch-size", "8");
    srl__chk_kv_set(kv, "replicas", "4");
    srl__chk_kv_set(kv, "sr-seed", "%s", shared ? "shared" : "independent");
    srl__chk_kv_set(kv, "strategy", "bf16-sr");
    srl__chk_kv_set(kv, "opt", "adam");
    srl__chk_kv_set(kv, "lr", "0.001");
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)every);
}

static int div_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                      srl_err *err)
{
    (void)j;
    (void)seed;
    (void)err;
    double m = 0;
    for (size_t i = 0; i < rows[0].n; i++)
        m = fmax(m, fmax(srl__chk_col(&rows[0], i, "replica_div"),
                         srl__chk_col(&rows[0], i, "replica_diff_frac")));
    out[0] = m;
    return SRL_OK;
}

int srl__chk_t12a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 2, 5), steps = 200;
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "mlp";
    j.nkv = 1;
    j.nout = 1;
    j.reduce = div_reduce;
    t12_kv(&j.kv[0], o->mutation != SRL_CHECK_MUT_EXPERIMENT, steps, 10);
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    double m = 0;
    for (uint64_t s = 0; s < N; s++)
        m = fmax(m, j.out[s]);
    free(j.out);
    srl__chk_result_begin(
        out, "T12a",
        "largest replica_div and replica_diff_frac over %llu steps "
        "(every 10th) of 4 data-parallel replicas with shared SR streams (mlp "
        "16 hidden units, bf16-sr, Adam), seeds 1-%llu; predicted 0 (bit-identical)",
        (unsigned long long)steps, (unsigned long long)N);
    srl__chk_result_set(out, SRL_CHECK_EXACT, m, m, m, 0.0);
    return SRL_OK;
}

static int d2_reduce(const tjob *j, uint64_t seed, const srl__chk_rows *rows, double *out,
                     srl_err *err)
{
    (void)j;
    (void)seed;
    (void)err;
    out[0] = srl__chk_last(&rows[0], "replica_d2");
    out[1] = srl__chk_last(&rows[0], "replica_d2_pred");
    return SRL_OK;
}

int srl__chk_t12b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        return srl__chk_no_mutation(o, err);
    const uint64_t N = srl__chk_seeds(o, 20, 100), steps = 200;
    tjob j;
    memset(&j, 0, sizeof j);
    j.problem = "mlp";
    j.nkv = 1;
    j.nout = 2;
    j.reduce = d2_reduce;
    t12_kv(&j.kv[0], false, steps, steps);
    int st = tjob_run(&j, N, err);
    if (st) {
        free(j.out);
        return st;
    }
    const double scale = o->mutation == SRL_CHECK_MUT_PREDICTION ? 0.5 : 1.0;
    double *d = tjob_col(&j, N, 0), *p = tjob_col(&j, N, 1);
    free(j.out);
    if (!d || !p) {
        free(d);
        free(p);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    double md, vd, mp, vp;
    srl__chk_mean_var(&md, &vd, d, (size_t)N);
    srl__chk_mean_var(&mp, &vp, p, (size_t)N);
    /* paired: the interval of mean(d2) - mean(pred) from the per-seed differences */
    for (uint64_t s = 0; s < N; s++)
        d[s] -= scale * p[s];
    double mx, vx;
    srl__chk_mean_var(&mx, &vx, d, (size_t)N);
    free(d);
    free(p);
    const double half = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1)) * sqrt(vx / (double)N);
    srl__chk_result_begin(out, "T12b",
                          "mean over seeds 1-%llu of replica_d2 = mean_r ||x_r - x_0||^2 "
                          "after %llu steps of 4 replicas with independent SR streams (as T12a); "
                          "predicted the runner's random-walk sum of 2 p (1 - p) q^2 (paired t "
                          "interval)",
                          (unsigned long long)N, (unsigned long long)steps);
    /* |mean(d2) - mean(pred)| <= half, written as an interval around the measurement */
    (void)mx;
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, md, md - half, md + half, scale * mp);
    return SRL_OK;
}

/* ---- T13: bytes per parameter ---- */

static int t13(srl_check_result *out, const srl_check_opts *o, const char *id, const char *strategy,
               size_t table, srl_err *err)
{
    if (o->mutation == SRL_CHECK_MUT_PREDICTION)
        return srl__chk_no_mutation(o, err);
    srl_strategy s;
    int st = srl_strategy_preset(&s, strategy, err);
    if (st)
        return st;
    const srl_optim_kind k = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? SRL_OPTIM_SGD : SRL_OPTIM_ADAMW;
    srl_weight_spec spec[2] = {{"w", 2, {100, 37, 0, 0}}, {"b", 1, {13, 0, 0, 0}}};
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str("T13"));
    srl_weights W;
    if ((st = srl_weights_alloc(&W, spec, 2, &s, k, &root, err)))
        return st;
    const double meas = srl_weights_bytes_per_param(&W);
    srl_weights_free(&W);
    const size_t printed = srl_t13_bytes(&s, SRL_OPTIM_ADAMW).total; /* `srlab theory T13` */
    srl__chk_result_begin(
        out, id,
        "bytes per parameter actually allocated by srl_weights_alloc for "
        "%s with AdamW (3713 parameters in 2 tensors, padding excluded); predicted "
        "the T13 table (srlab theory T13 prints %zu)",
        strategy, printed);
    srl__chk_result_set(out, SRL_CHECK_EXACT, meas, meas, meas, (double)table);
    if (printed != table) {
        out->pass = false;
        out->margin = fmin(out->margin, -fabs((double)printed - (double)table) / (double)table);
    }
    return SRL_OK;
}

int srl__chk_t13a(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t13(out, o, "T13a", "fp32", 16, err);
}

int srl__chk_t13b(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t13(out, o, "T13b", "mp", 16, err);
}

int srl__chk_t13c(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t13(out, o, "T13c", "bf16-rn", 8, err);
}

int srl__chk_t13d(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t13(out, o, "T13d", "bf16-sr", 8, err);
}

int srl__chk_t13e(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t13(out, o, "T13e", "bf16-sr-exact", 8, err);
}

int srl__chk_t13f(srl_check_result *out, const srl_check_opts *o, srl_err *err)
{
    return t13(out, o, "T13f", "bf16-kahan", 10, err);
}
