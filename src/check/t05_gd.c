/* src/check/t05_gd.c: the checks of theory/T05-gd-quadratic.md: gradient descent on
 * a/2 (x - x*)^2 (a 1, x* 0.3, x0 1) through the quad1d runner of `srlab train`
 * (src/problems/convex.c), against include/srlab/theory.h.
 *
 *   T05a  RN: the stall distance lies in the band [D - ulp, D], D = ulp(x*)/(2 lr a) (step 2),
 *         widened by the binary32 arithmetic's move of the freeze threshold.
 *   T05b  RN: the run stops exactly at the fixed point of the rounded map srl_t05_rn_stall
 *         iterates.
 *   T05c  SR: the mean iterate over seeds is the exact GD iterate at every logged step (step 3).
 *   T05d-e  SR: the time-averaged excess loss settles at the floor (a/2)(x* - g0)(g1 - x*), the
 *         same at lr 0.1 and 0.01 (step 4).
 * Seeds 1 .. N. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/rounding.h"
#include "srlab/theory.h"

#define T05_A 1.0
#define T05_XS 0.3
#define T05_X0 1.0
#define T05_LR 0.01

/* The problem's keys after the write's: a, x*, x0, lr, and the steps logged every `every`. */
static void gd_kv(srl__chk_kv *kv, double lr, uint64_t steps, uint64_t every)
{
    srl__chk_kv_set(kv, "a", "%.17g", T05_A);
    srl__chk_kv_set(kv, "xstar", "%.17g", T05_XS);
    srl__chk_kv_set(kv, "x0", "%.17g", T05_X0);
    srl__chk_kv_set(kv, "lr", "%.17g", lr);
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)every);
}

/* The SR runs of T05c-e: bf16-sr weights (sr:r=16 of fp32; the mutation: rn), fp32 gradient. */
static void sr_gd_kv(srl__chk_kv *kv, const srl_check_opts *o, double lr, uint64_t steps,
                     uint64_t every)
{
    srl__chk_kv_set(kv, "opt", "sgd");
    srl__chk_kv_set(kv, "strategy", "bf16-sr");
    srl__chk_kv_set(kv, "grad-format", "fp32");
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        srl__chk_kv_set(kv, "rounding", "rn");
    gd_kv(kv, lr, steps, every);
}

/* What the weights of sr_gd_kv's runs are, as the row says it. */
static const char *sr_weights(const srl_check_opts *o)
{
    return o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "bf16 weights written with rn (mutation)"
                                                   : "bf16-sr weights (sr:r=16 of fp32)";
}

/* The RN run of T05a-b (or SR for the mutation): final x after the stall step + 100. */
static int rn_run(double *x, srl_t05_stall *pred, const srl_check_opts *o, srl_err *err)
{
    const srl_format *fp32 = srl_format_find("fp32");
    int st = srl_t05_rn_stall(pred, T05_A, T05_XS, T05_X0, T05_LR, srl__chk_bf16(), fp32,
                              SRL_ARITH_FP32, SRL_T05_STALL_MAX_STEPS);
    if (st)
        return srl_err_set(err, st, "srl_t05_rn_stall failed");
    const uint64_t steps = pred->step + 100;
    srl__chk_kv kv;
    srl__chk_kv_init(&kv);
    srl__chk_kv_set(&kv, "opt", "sgd");
    srl__chk_kv_set(&kv, "format", "bf16");
    srl__chk_kv_set(&kv, "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr" : "rn");
    gd_kv(&kv, T05_LR, steps, steps);
    srl__chk_rows r;
    if ((st = srl__chk_run(&r, SRL_RUN_TRAIN, "quad1d", &kv, 1, NULL, NULL, err)))
        return st;
    *x = srl__chk_last(&r, "x");
    srl__chk_rows_free(&r);
    return SRL_OK;
}

int srl__chk_gd_stall_band(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    double x;
    srl_t05_stall pred;
    int st = rn_run(&x, &pred, o, err);
    if (st)
        return st;
    const double ulp = srl_format_ulp(srl__chk_bf16(), T05_XS);
    double D = srl_t05_stall_distance(T05_XS, T05_LR, T05_A, srl__chk_bf16());
    double q = ulp;
    if (o->mutation == SRL_CHECK_MUT_PREDICTION) {
        D /= 2;
        q /= 2;
    }
    /* T05 tolerance: the binary32 gradient and step (4 roundings of relative 2^-24) move the
     * freeze threshold by at most 4 u32 D */
    const double w = 4 * SRL__CHK_U32 * D, d = fabs(x - T05_XS);
    srl__chk_result_begin(
        out, row->check.id,
        "%s stall distance |x_T - x*| of GD on a/2 (x - x*)^2 (bf16 "
        "%s weights, fp32 gradient and update, a 1, x* 0.3, x0 1, lr 0.01, %llu "
        "steps, deterministic); predicted band [D - ulp, D], D = ulp(x*)/(2 lr a)",
        o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "SR (mutation)" : "RN",
        o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr" : "rn",
        (unsigned long long)(pred.step + 100));
    srl__chk_result_set(out, SRL_CHECK_BAND, d, D - q - w, D + w, D);
    return SRL_OK;
}

int srl__chk_gd_stall_point(srl_check_result *out, const srl__chk_row *row,
                            const srl_check_opts *o, srl_err *err)
{
    double x;
    srl_t05_stall pred;
    int st = rn_run(&x, &pred, o, err);
    if (st)
        return st;
    srl__chk_result_begin(
        out, row->check.id,
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

static int mean_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                       double *out, srl_err *err)
{
    (void)j;
    if (rows[0].n != T05C_K)
        return srl_err_set(err, SRL_EINVAL, "T05c seed %llu: %zu rows", (unsigned long long)seed,
                           rows[0].n);
    for (size_t i = 0; i < T05C_K; i++)
        out[i] = srl__chk_col(&rows[0], i, "x");
    return SRL_OK;
}

int srl__chk_gd_sr_mean(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                        srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 400, 2000);
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, T05C_K, mean_reduce, NULL);
    sr_gd_kv(&j.kv[0], o, T05_LR, T05C_STEPS, T05C_EVERY);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    /* T05 tolerance: Var(x_t) <= (q^2/4) / (1 - (1 - lr a)^2), q = 2^-8 the largest spacing on
     * the path (0.29, 1]; z at 1 - alpha/(2K) (Bonferroni over the K logged steps); the binary32
     * arithmetic's bias <= 3 u32 1.1 / (lr a) */
    const double q = 0x1p-8, c = 1 - T05_LR * T05_A;
    const double V = q * q / 4 / (1 - c * c);
    const double z = srl__chk_z(SRL_CHECK_ALPHA / T05C_K);
    const double b = 3 * SRL__CHK_U32 * 1.1 / (T05_LR * T05_A);
    const double half = z * sqrt(V / (double)N) + b;
    bool have = false;
    for (size_t k = 0; k < T05C_K; k++) {
        double s = 0;
        for (uint64_t i = 0; i < N; i++)
            s += j.out[i * T05C_K + k];
        const double mean = s / (double)N;
        const double x0 = srl_round(T05_X0, srl__chk_bf16(), SRL_ROUND_RN, NULL);
        const double gd = srl_t05_gd_iterate(T05_A, T05_XS, x0, T05_LR, k * T05C_EVERY);
        srl_check_result r;
        srl__chk_result_begin(
            &r, row->check.id,
            "mean over seeds 1-%llu of x_t, GD on a/2 (x - x*)^2 with "
            "%s, a 1, x* 0.3, x0 1, lr 0.01, at t = "
            "%zu (worst of %d logged steps); predicted the exact GD iterate",
            (unsigned long long)N, sr_weights(o), k * T05C_EVERY, T05C_K);
        srl__chk_result_set(&r, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, gd);
        srl__chk_keep_worst(out, &r, &have);
    }
    free(j.out);
    return SRL_OK;
}

/* T05d, T05e: the SR floor, time-averaged per seed after the burn-in */
static int floor_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                        double *out, srl_err *err)
{
    (void)seed;
    (void)err;
    const double *burn = j->ctx;
    out[0] = srl__chk_late_mean(&rows[0], "loss_gap", *burn);
    return SRL_OK;
}

int srl__chk_gd_sr_floor(srl_check_result *out, const srl__chk_row *row,
                         const srl_check_opts *o, srl_err *err)
{
    const double lr = row->params.lr;
    const uint64_t N = srl__chk_seeds(o, 100, 400);
    /* burn-in: the approach from x0 contracts by (1 - lr a) per step and the two-state chain
     * mixes at the same rate: 25/(lr a) steps leave e^-25 of either; then 100/(lr a) steps
     * logged every 1/(lr a) (successive logs correlated by e^-1) */
    const double burn = 25 / (lr * T05_A);
    const uint64_t every = (uint64_t)ceil(1 / (lr * T05_A));
    const uint64_t steps = (uint64_t)(burn + 100 / (lr * T05_A));
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, floor_reduce, &burn);
    sr_gd_kv(&j.kv[0], o, lr, steps, every);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    double mean, var;
    srl__chk_mean_var(&mean, &var, j.out, (size_t)N);
    free(j.out);
    const double half = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1)) * sqrt(var / (double)N);
    double pred = srl_t05_sr_floor(T05_A, T05_XS, srl__chk_bf16());
    if (o->mutation == SRL_CHECK_MUT_PREDICTION) { /* a uniform spread's ulp^2 a / 12 */
        const double q = srl_format_ulp(srl__chk_bf16(), T05_XS);
        pred = q * q * T05_A / 12;
    }
    srl__chk_result_begin(out, row->check.id,
                          "mean over seeds 1-%llu of the time-averaged loss_gap after %.0f "
                          "burn-in steps, GD with %s on a/2 (x - x*)^2, a 1, x* 0.3, "
                          "lr %g, %llu steps; predicted the SR floor (a/2)(x* - g0)(g1 - x*)",
                          (unsigned long long)N, burn, sr_weights(o), lr,
                          (unsigned long long)steps);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, pred);
    return SRL_OK;
}
