/* src/check/t11_trajectory.c: the check T11a of theory/T11-implicit-regularization.md (item 2):
 * on a quadratic (d 8, eigenvalues 1..10, x0 0) the mean trajectory of gradient descent with bf16
 * weights written with exact sr equals the exact one: per seed, the deviation of the SR run from
 * a binary64 run of the same problem is recorded by a hook every 10 steps, and its mean over
 * seeds must be 0 at every logged step and coordinate (Student t, Bonferroni, widened by the
 * binary32 arithmetic's bias). T11b is in src/check/round.c. Seeds 1 .. N. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>

#include "srlab/optim.h"

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

/* run 0: bf16 weights written with exact sr (fp32 gradient and update; the mutation: rn); run 1:
 * the binary64 reference (weights, gradient and update in binary64, rn) */
static void trajectory_kv(t11job *j, const srl_check_opts *o)
{
    for (int k = 0; k < 2; k++) {
        srl__chk_kv *kv = &j->kv[k];
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
    srl__chk_kv_set(&j->kv[0], "format", "bf16");
    srl__chk_kv_set(&j->kv[0], "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr");
    srl__chk_kv_set(&j->kv[1], "format", "fp64");
    srl__chk_kv_set(&j->kv[1], "grad-format", "fp64");
    srl__chk_kv_set(&j->kv[1], "update-arith", "fp64");
}

/* The worst of the K d comparisons of the seeds' mean deviation with 0 (col: room for N). */
static void judge_deviations(srl_check_result *out, const char *id, const t11job *j, uint64_t N,
                             double *col)
{
    double X = 0;
    for (uint64_t s = 0; s < N; s++)
        X = fmax(X, j->xmax[s]);
    /* T11 tolerance: Student t at 1 - alpha/(K d) (Bonferroni over steps and coordinates) on the
     * seeds' deviations (independent, mean 0 by T11 step 1), plus the bias of the binary32
     * gradient and update: at most 3 u32 (X + 1) per step through the contraction
     * 1 - lr lambda_min, lambda_min = 1 */
    const double tq = srl__chk_t(SRL_CHECK_ALPHA / (T11_K * T11_D), (double)(N - 1));
    const double b = 3 * SRL__CHK_U32 * (X + 1) / (T11_LR * 1.0);
    bool have = false;
    for (int t = 0; t < T11_K; t++)
        for (int d = 0; d < T11_D; d++) {
            for (uint64_t s = 0; s < N; s++)
                col[s] = j->dev[((size_t)s * T11_K + (size_t)t) * T11_D + (size_t)d];
            double mean, var;
            srl__chk_mean_var(&mean, &var, col, (size_t)N);
            const double half = tq * sqrt(var / (double)N) + b;
            srl_check_result r;
            srl__chk_result_begin(&r, id,
                                  "mean over seeds 1-%llu of (x_t,i of GD with bf16 "
                                  "sr weights) - (x_t,i of the binary64 run of the same problem), "
                                  "signed toward x0, quadratic d %d, eigenvalues 1..10, lr %g, "
                                  "t = %d, i = %d (worst of %d); predicted 0",
                                  (unsigned long long)N, T11_D, T11_LR, (t + 1) * T11_EVERY, d,
                                  T11_K * T11_D);
            srl__chk_result_set(&r, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, 0.0);
            srl__chk_keep_worst(out, &r, &have);
        }
}

int srl__chk_sr_trajectory(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 200, 800);
    t11job j;
    trajectory_kv(&j, o);
    j.dev = malloc((size_t)N * T11_K * T11_D * sizeof *j.dev);
    j.xmax = malloc((size_t)N * sizeof *j.xmax);
    double *col = malloc((size_t)N * sizeof *col);
    int st = SRL_OK;
    if (!j.dev || !j.xmax || !col)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    if (!st)
        st = srl__chk_parallel((size_t)N, t11_item, &j, err);
    if (!st)
        judge_deviations(out, row->check.id, &j, N, col);
    free(j.dev);
    free(j.xmax);
    free(col);
    return st;
}
