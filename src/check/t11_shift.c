/* src/check/t11_shift.c: the checks T11c and T11d of theory/T11-implicit-regularization.md (item 3)
 * on f(x) = x^4/4, gradient descent with weights written with exact sr (the update in binary64),
 * against T11's closed recursion (srl_t11_quartic_predict): the mean m_t and the iterate variance
 * Sigma_t predicted together, Sigma_t from the rounding variance of x_t's law taken as a Gaussian
 * on the grid (srl_t11_grid_sr_var), nothing measured.
 *
 *   T11c  e4m3 (a coarse grid: a large shift), x0 1.5, lr 0.05, 40 steps: the shift of the mean
 *         iterate from exact gradient descent, D_T = E[x_T] - x_T^GD, against the recursion's.
 *   T11d  bf16, x0 1.5, lr 0.02, 100 steps (the law spans a few spacings: the recursion is
 *         accurate there): the iterate variance Var(x_T) against the recursion's Sigma_T.
 * The `what` text also reports the recursion's largest relative error in Sigma_t over the steps
 * (from step 4), and what the old form of item 3 (one step's rounding variance along the mean
 * path in place of S_t) would predict. T11c's also reports where the Gaussian law is not
 * accurate: the recursion's largest error on e5m2 (4 values per binade), x0 1.5, lr 0.05, 40
 * steps, seeds 1-10 x T11_D coordinates (stream "T11c/e5m2", always sr; the same 10 seeds at
 * every size, so full and --quick report the same number), and the shift D_T that item 3's
 * mean recursion (srl_t11_quartic_mean_shift) gives from the measured Sigma_t: what the closed
 * recursion's Gaussian law and the dropped third moment cost.
 *
 * Each seed s = 1 .. N runs T11_D independent coordinates (its own stream "T11c"/"T11d", key s);
 * per step it records the sums of x_t and x_t^2. T11c: the seeds' means of x_T are independent,
 * so mean - x_T^GD has a Student t interval at level 1 - SRL_CHECK_ALPHA. T11d: the seeds'
 * variances of x_T are independent, a Student t interval on their mean (the pooled variance
 * differs from it by the spread of the seeds' means, O(1/4000) relative, added to the
 * tolerance). The prediction must lie in the interval. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>

#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/theory.h"

#define T11_D 4000
#define T11_TMAX 100
#define T11_COARSE_N 10 /* seeds of T11c's e5m2 run */

typedef struct t11_setup {
    const char *format, *stream;
    double x0, lr;
    int T;
} t11_setup;

typedef struct t11c_job {
    const t11_setup *su;
    const srl_format *f;
    srl_rounding mode;
    double *mom; /* N x T x 2: sums of x_t, x_t^2 after step t + 1 */
} t11c_job;

static int t11c_item(void *ctx, size_t i, srl_err *err)
{
    t11c_job *j = ctx;
    const int T = j->su->T;
    double *x = malloc(T11_D * sizeof *x), *y = malloc(T11_D * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    srl_rng root, r;
    srl_rng_init(&root, SRL_RNG_DEFAULT, (uint64_t)i + 1, srl_hash_str(j->su->stream));
    srl_rng_derive(&r, &root, 0);
    for (size_t k = 0; k < T11_D; k++)
        x[k] = j->su->x0;
    int st = SRL_OK;
    for (int t = 0; t < T && !st; t++) {
        for (size_t k = 0; k < T11_D; k++)
            y[k] = x[k] - j->su->lr * x[k] * x[k] * x[k];
        st = srl_round_array(x, y, T11_D, j->f, j->mode, &r);
        double *m = j->mom + ((size_t)i * (size_t)T + (size_t)t) * 2;
        m[0] = m[1] = 0;
        for (size_t k = 0; k < T11_D; k++) {
            m[0] += x[k];
            m[1] += x[k] * x[k];
        }
    }
    free(x);
    free(y);
    return st ? srl_err_set(err, st, "T11: srl_round_array failed") : SRL_OK;
}

/* Two wrong forms of item 3, for the prediction mutations and the `what` text: with acc, Sigma_t
 * accumulated through the recursion from one step's rounding variance taken along the mean path
 * (s^2 of y = m - lr m^3, not averaged over x_t's law: off by -40% to +60% per step on T11c's
 * setup); without, Sigma_t replaced by that one step's variance (the first statement of item 3,
 * which predicted a shift about 9 times too small). D from each. */
static void mean_path(double *sig, double *D, double *gT, const t11_setup *su,
                      const srl_format *f, bool acc)
{
    double m = su->x0, S = 0, g = su->x0;
    for (int t = 0; t < su->T; t++) {
        const double c = 1 - 3 * su->lr * m * m, y = m - su->lr * m * m * m;
        const double s2 = srl_t01_sr_variance(y, f), Sn = acc ? c * c * S + s2 : s2;
        m = m - su->lr * (m * m * m + 3 * m * (acc ? S : s2));
        S = Sn;
        g -= su->lr * g * g * g;
        sig[t] = S;
        D[t] = m - g;
    }
    *gT = g;
}

/* From the moments mom (N seeds x T steps, as t11c_item records them): the measured Sigma_t,
 * pooled (serially, in seed order); *worst the recursion sig's largest relative error over steps
 * 4 .. T (signed), *lo, *hi the range of psig's relative errors there. */
static void recursion_error(double *worst, double *lo, double *hi, const double *sig,
                            const double *psig, const double *mom, uint64_t N, int T)
{
    *worst = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int t = 3; t < T; t++) {
        double a = 0, b = 0;
        for (uint64_t s = 0; s < N; s++) {
            const double *m = mom + ((size_t)s * (size_t)T + (size_t)t) * 2;
            a += m[0];
            b += m[1];
        }
        const double n = (double)N * T11_D, var = b / n - (a / n) * (a / n);
        if (fabs(sig[t] / var - 1) > fabs(*worst))
            *worst = sig[t] / var - 1;
        *lo = fmin(*lo, psig[t] / var - 1);
        *hi = fmax(*hi, psig[t] / var - 1);
    }
}

static int t11_run(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                   const t11_setup *su, bool variance, srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 40, 200);
    const int T = su->T;
    t11c_job j = {su, srl_format_find(su->format), {SRL_SR, 0}, NULL};
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        j.mode.mode = SRL_RN;
    j.mom = malloc(N * (size_t)T * 2 * sizeof *j.mom);
    double *v = malloc(N * sizeof *v), *xm = malloc(N * sizeof *xm);
    int st = (!j.mom || !v || !xm) ? srl_err_set(err, SRL_ENOMEM, "out of memory")
                                   : srl__chk_parallel(N, t11c_item, &j, err);
    /* T11c: the recursion on e5m2, where the Gaussian law on the grid is not accurate */
    static const t11_setup coarse = {"e5m2", "T11c/e5m2", 1.5, 0.05, 40};
    t11c_job jc = {&coarse, srl_format_find(coarse.format), {SRL_SR, 0}, NULL};
    double cworst = 0;
    if (!st && !variance) {
        jc.mom = malloc(T11_COARSE_N * (size_t)coarse.T * 2 * sizeof *jc.mom);
        st = !jc.mom ? srl_err_set(err, SRL_ENOMEM, "out of memory")
                     : srl__chk_parallel(T11_COARSE_N, t11c_item, &jc, err);
        if (!st) {
            double csig[T11_TMAX], cD[T11_TMAX], cgT, lo, hi;
            srl_t11_quartic_predict(csig, cD, &cgT, coarse.x0, coarse.lr, (size_t)coarse.T, jc.f);
            recursion_error(&cworst, &lo, &hi, csig, csig, jc.mom, T11_COARSE_N, coarse.T);
        }
    }
    if (!st) {
        double sig[T11_TMAX], D[T11_TMAX], gT, osig[T11_TMAX], oD[T11_TMAX], ogT;
        double psig[T11_TMAX], pD[T11_TMAX], pgT;
        srl_t11_quartic_predict(sig, D, &gT, su->x0, su->lr, (size_t)T, j.f);
        mean_path(osig, oD, &ogT, su, j.f, variance); /* T11c: the first form; T11d: the
                                                         accumulated one */
        mean_path(psig, pD, &pgT, su, j.f, true);
        double worst, plo, phi;
        recursion_error(&worst, &plo, &phi, sig, psig, j.mom, N, T);
        for (uint64_t s = 0; s < N; s++) {
            const double *m = j.mom + ((size_t)s * (size_t)T + (size_t)(T - 1)) * 2;
            xm[s] = m[0] / T11_D;
            v[s] = m[1] / T11_D - xm[s] * xm[s];
        }
        double mean, var, vmean, vvar;
        srl__chk_mean_var(&mean, &var, xm, (size_t)N);
        srl__chk_mean_var(&vmean, &vvar, v, (size_t)N);
        const double t = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1));
        const bool old = o->mutation == SRL_CHECK_MUT_PREDICTION;
        if (!variance) {
            const double se = sqrt(var / (double)N), Dm = mean - gT;
            const double pred = old ? oD[T - 1] : D[T - 1];
            /* item 3's shift from the measured Sigma_t (pooled; 0 before step 1): how far the
             * closed recursion's Gaussian law and dropped third moment move D_T */
            double msig[T11_TMAX], mgT;
            msig[0] = 0;
            for (int u = 1; u < T; u++) {
                double a = 0, b = 0;
                for (uint64_t s = 0; s < N; s++) {
                    const double *m = j.mom + ((size_t)s * (size_t)T + (size_t)(u - 1)) * 2;
                    a += m[0];
                    b += m[1];
                }
                const double n = (double)N * T11_D;
                msig[u] = b / n - (a / n) * (a / n);
            }
            const double Dmeas = srl_t11_quartic_mean_shift(&mgT, su->x0, su->lr, msig, (size_t)T);
            srl__chk_result_begin(
                out, row->check.id,
                "mean shift E[x_T] - x_T^GD, GD on x^4/4 (%s sr, x0 %g, lr %g, T %d), seeds "
                "1-%llu x %d; closed recursion: Sigma_T %.4g, off by at most %+.1f%% per step "
                "(%s, x0 %g, lr %g, T %d, seeds 1-%d: %+.1f%%); S_t along the mean path: %+.0f%% "
                "to %+.0f%%; one step's s^2: shift %.3g; measured Sigma_t: shift %.4g",
                su->format, su->x0, su->lr, T, (unsigned long long)N, T11_D, sig[T - 1],
                100 * worst, coarse.format, coarse.x0, coarse.lr, coarse.T, T11_COARSE_N,
                100 * cworst, 100 * plo, 100 * phi, oD[T - 1], Dmeas);
            srl__chk_result_set(out, SRL_CHECK_INTERVAL, Dm, Dm - t * se, Dm + t * se, pred);
        } else {
            /* the pooled variance exceeds the mean of the seeds' by (N-1)/N var(means) */
            const double se = sqrt(vvar / (double)N), pooled = vmean + var * (double)(N - 1) / N;
            const double pred = old ? osig[T - 1] : sig[T - 1], tol = var;
            srl__chk_result_begin(
                out, row->check.id,
                "iterate variance Var(x_T) of GD on x^4/4 (%s sr, x0 %g, lr %g, T = %d), seeds "
                "1-%llu x %d coordinates; predicted Sigma_T by the closed recursion (off by at "
                "most %+.2f%% per step; S_t along the mean path: %.4g)",
                su->format, su->x0, su->lr, T, (unsigned long long)N, T11_D, 100 * worst,
                osig[T - 1]);
            srl__chk_result_set(out, SRL_CHECK_INTERVAL, pooled, pooled - t * se - tol,
                                pooled + t * se + tol, pred);
        }
    }
    free(j.mom);
    free(jc.mom);
    free(v);
    free(xm);
    return st;
}

int srl__chk_quartic_trajectory(srl_check_result *out, const srl__chk_row *row,
                                const srl_check_opts *o, srl_err *err)
{
    static const t11_setup su = {"e4m3", "T11c", 1.5, 0.05, 40};
    return t11_run(out, row, o, &su, false, err);
}

int srl__chk_quartic_variance(srl_check_result *out, const srl__chk_row *row,
                              const srl_check_opts *o, srl_err *err)
{
    static const t11_setup su = {"bf16", "T11d", 1.5, 0.02, 100};
    return t11_run(out, row, o, &su, true, err);
}
