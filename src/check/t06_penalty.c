/* src/check/t06_penalty.c: the relative SR penalty of theory/T06-noisy-sgd.md (T06a-c: SGD at r =
 * lr sigma / ulp = 1.28, 0.64 and 0.256, where the large-r form ulp^2/(6 lr^2 sigma^2) is 20%
 * too large) and theory/T10-adam-convergence.md item 4 (T10a-b: Adam with beta1 = 0; T10g: beta1
 * = 0.9, the seed paper's, against the Lyapunov model, where the beta1 = 0 formula is 66% too
 * large).
 *
 * On a/2 (x - x*)^2 (a 1, x* 1.5 = x0) with gradient noise of sd 1, each seed runs the quad1d
 * runner twice on the same noise: bf16 weights written with sr (everything else fp32) and fp32.
 * The penalty is the ratio R = mean(SR excess over fp32) / mean(fp32 excess) of the loss gaps
 * averaged after the burn-in; its interval comes from the delta method (a ratio estimator over
 * independent seeds, Student t), widened for Adam by the effects T10 step 4 neglects.
 * Seeds 1 .. N. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/theory.h"

#define PEN_A 1.0
#define PEN_XS 1.5
#define PEN_SIGMA 1.0
#define PEN_BETA2 0.999
#define PEN_WINDOW 20000 /* steps averaged after the burn-in */

typedef struct penalty_setup {
    bool adam;
    double lr, beta1;
    double burn; /* steps before the average */
} penalty_setup;

static int penalty_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                          double *out, srl_err *err)
{
    (void)seed;
    (void)err;
    const penalty_setup *ps = j->ctx;
    const double sr = srl__chk_late_mean(&rows[0], "loss_gap", ps->burn);
    const double ex = srl__chk_late_mean(&rows[1], "loss_gap", ps->burn);
    out[0] = sr - ex; /* the SR excess over the (nearly exact) fp32 run */
    out[1] = ex;
    return SRL_OK;
}

/* The two runs of each seed: run 0 bf16 weights written with sr (the mutation: rn), everything
 * else fp32; run 1 fp32. */
static void penalty_runs(srl__chk_job *j, const penalty_setup *ps, const char *opt,
                         const srl_check_opts *o)
{
    const uint64_t steps = (uint64_t)ps->burn + PEN_WINDOW;
    for (int k = 0; k < 2; k++) {
        srl__chk_kv *kv = &j->kv[k];
        srl__chk_kv_set(kv, "opt", "%s", opt);
        if (ps->adam) {
            srl__chk_kv_set(kv, "beta1", "%.17g", ps->beta1);
            srl__chk_kv_set(kv, "beta2", "%.17g", PEN_BETA2);
        }
        srl__chk_kv_set(kv, "a", "%.17g", PEN_A);
        srl__chk_kv_set(kv, "xstar", "%.17g", PEN_XS);
        srl__chk_kv_set(kv, "x0", "%.17g", PEN_XS);
        srl__chk_kv_set(kv, "lr", "%.17g", ps->lr);
        srl__chk_kv_set(kv, "grad-noise", "%.17g", PEN_SIGMA);
        srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
        srl__chk_kv_set(kv, "log-every", "10");
    }
    srl__chk_kv_set(&j->kv[0], "format", "bf16");
    srl__chk_kv_set(&j->kv[0], "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr");
    srl__chk_kv_set(&j->kv[1], "strategy", "fp32");
}

/* R = mean(D) / mean(E) over the seeds' (D, E) = (SR excess, fp32 excess), and the half-width of
 * its interval: the ratio estimator's variance by the delta method, Var(D - R E) / (N mean(E)^2),
 * with the Student t quantile. */
static int ratio_interval(double *R, double *half, const srl__chk_job *j, uint64_t N,
                          srl_err *err)
{
    double *D = srl__chk_job_col(j, N, 0), *E = srl__chk_job_col(j, N, 1);
    if (!D || !E) {
        free(D);
        free(E);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    double md, vd, me, ve;
    srl__chk_mean_var(&md, &vd, D, (size_t)N);
    srl__chk_mean_var(&me, &ve, E, (size_t)N);
    *R = md / me;
    for (uint64_t s = 0; s < N; s++)
        D[s] -= *R * E[s];
    double m0, v0;
    srl__chk_mean_var(&m0, &v0, D, (size_t)N);
    free(D);
    free(E);
    *half = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1)) * sqrt(v0 / (double)N) / me;
    return SRL_OK;
}

/* The predicted penalty: T06's v(r)/r^2 for SGD; for Adam T10 item 4's Lyapunov model (its
 * neglected effects of v_hat's fluctuation are below 2 (1 - beta2) relative: *model, added to the
 * tolerance). The prediction mutations: 'q' ulp^2/4 in place of the write's variance (1.5 times
 * the penalty at large r), 'r' T06's large-r form ulp^2/(6 lr^2 sigma^2), 'b' the beta1 = 0
 * formula for Adam with momentum. */
static double penalty_prediction(double *model, const penalty_setup *ps, char mut,
                                 const srl_check_opts *o)
{
    const double ulp = srl_format_ulp(srl__chk_bf16(), PEN_XS);
    const bool mutated = o->mutation == SRL_CHECK_MUT_PREDICTION;
    const double kq = mutated && mut == 'q' ? 6.0 / 4.0 : 1.0;
    *model = 0;
    if (!ps->adam) {
        if (mutated && mut == 'r')
            return srl_t06_relative_penalty_large_r(ps->lr, ulp, PEN_SIGMA);
        return kq * srl_t06_relative_penalty(ps->lr, ulp, PEN_SIGMA);
    }
    if (mutated && mut == 'b')
        return srl_t10_adam_relative_penalty(ps->lr, ulp, PEN_A, PEN_SIGMA);
    srl_t10_adam_model am;
    if (srl_t10_adam_stationary(&am, ps->lr, ulp, PEN_A, PEN_SIGMA, ps->beta1))
        return NAN;
    const double pred = kq * am.penalty;
    *model = 2 * (1 - PEN_BETA2) * pred;
    return pred;
}

int srl__chk_sr_penalty(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                        srl_err *err)
{
    const char *opt = row->params.penalty.opt;
    penalty_setup ps;
    ps.adam = !strcmp(opt, "adam");
    ps.lr = row->params.penalty.lr;
    ps.beta1 = row->params.penalty.beta1;
    /* burn-in: 10/(lr a) for the iterate (e^-20 of the start, which is x* anyway); Adam's v
     * also needs 5/(1 - beta2) steps to forget its start */
    ps.burn = fmax(10 / (ps.lr * PEN_A), ps.adam ? 5 / (1 - PEN_BETA2) : 0);
    const uint64_t N = srl__chk_seeds(o, 100, 400);
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 2, 2, penalty_reduce, &ps);
    penalty_runs(&j, &ps, opt, o);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    double R = NAN, half = NAN, model;
    st = ratio_interval(&R, &half, &j, N, err);
    free(j.out);
    if (st)
        return st;
    const double pred = penalty_prediction(&model, &ps, row->params.penalty.mut, o);
    const double ulp = srl_format_ulp(srl__chk_bf16(), PEN_XS);
    srl__chk_result_begin(out, row->check.id,
                          "relative SR penalty (mean loss_gap bf16-sr - fp32) / fp32 of %s on "
                          "a/2 (x - x*)^2 + noise sigma 1, x* 1.5, lr %g (r = %.3g), paired seeds "
                          "1-%llu, %d steps after %.0f; predicted %s",
                          ps.adam ? (ps.beta1 > 0 ? "Adam (beta1 0.9)" : "Adam (beta1 0)") : "SGD",
                          ps.lr, ps.lr * (ps.adam ? 1 : PEN_SIGMA) / ulp, (unsigned long long)N,
                          PEN_WINDOW, ps.burn,
                          ps.adam ? "T10's Lyapunov model" : "v(r)/r^2");
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, R, R - half - model, R + half + model, pred);
    return SRL_OK;
}
