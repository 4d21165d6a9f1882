/* src/check/t10_bound.c: the check T10h of theory/T10-adam-convergence.md items 1-2: the rounding
 * term of the bound, measured step by step. The descent lemma across the write gives
 *     F(x_{t+1}) - F(x^_{t+1}) = grad F(x^_{t+1}) . eta_t + (L/2) ||eta_t||^2
 * (an equality on a quadratic, L = a), x^_{t+1} the unrounded update and eta_t the write's error;
 * under SR the first term has mean zero and the second the write's variance, so
 *     E[F(x_{t+1}) - F(x^_{t+1})] = (a/2) E[(x^ - RD)(RU - x^)]   (<= (a/2) ulp^2/4, item 2).
 * Adam (beta1 0.9, the paper's), bf16 weights written with exact sr (moments and update
 * binary32), on a/2 (x - x*)^2 with gradient noise: a per-step hook rebuilds x^_{t+1} from the
 * stored x_t, m' and v' (include/srlab/optim.h's operations in binary32; T10f checks that they are
 * the library's), and each seed averages both sides over the steps after the burn-in; the mean
 * over seeds of the difference must be 0 (a paired Student t interval, seeds 1 .. N). */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>

#include "srlab/format.h"
#include "srlab/optim.h"
#include "srlab/rounding.h"
#include "srlab/tensor.h"

#define T10H_A 1.0
#define T10H_XS 1.5
#define T10H_SIGMA 0.01 /* the noise: Adam's steps do not depend on it, the spread does */
#define T10H_LR 0.01
#define T10H_B1 0.9
#define T10H_B2 0.999
#define T10H_EPS 1e-8
#define T10H_BURN 5000 /* 5 / (1 - beta2): v_hat forgets its start */
#define T10H_WINDOW 10000

typedef struct t10h_seed {
    float xprev;       /* x_t, before the step the hook sees */
    double sumD, sumP; /* over the window: F(x_{t+1}) - F(x^_{t+1}), (a/2)(x^ - RD)(RU - x^) */
    uint64_t n;
} t10h_seed;

static double quad(double x)
{
    return T10H_A / 2 * (x - T10H_XS) * (x - T10H_XS);
}

static int t10h_hook(void *arg, const srl_weights *W, uint64_t t, const srl_step_stats *st)
{
    (void)st;
    t10h_seed *c = arg;
    const srl_weight *p = &W->p[0];
    float x1, m, v;
    srl_tensor_get_f(&x1, p->w, 0, 1);
    srl_tensor_get_f(&m, p->m, 0, 1);
    srl_tensor_get_f(&v, p->v, 0, 1);
    /* x^_{t+1} = x_t - s, s = lr ((m'/bc1) / (sqrt(v'/bc2) + eps)), in binary32 */
    const float lr = (float)T10H_LR, eps = (float)T10H_EPS,
                bc1 = (float)(1.0 - pow(T10H_B1, (double)t)),
                bc2 = (float)(1.0 - pow(T10H_B2, (double)t));
    const float xh = c->xprev - lr * ((m / bc1) / (sqrtf(v / bc2) + eps));
    if (t > T10H_BURN) {
        const srl_format *bf16 = srl__chk_bf16();
        const double rd = srl_round(xh, bf16, (srl_rounding){SRL_RD, 0}, NULL),
                     ru = srl_round(xh, bf16, (srl_rounding){SRL_RU, 0}, NULL);
        c->sumD += quad(x1) - quad(xh);
        c->sumP += T10H_A / 2 * (xh - rd) * (ru - xh);
        c->n++;
    }
    c->xprev = x1;
    return 0;
}

typedef struct t10h_job {
    srl__chk_kv kv;
    double *D, *P; /* per seed: the window's means */
} t10h_job;

static int t10h_item(void *ctx, size_t i, srl_err *err)
{
    t10h_job *j = ctx;
    t10h_seed c = {(float)T10H_XS, 0, 0, 0};
    const int st = srl__chk_run(NULL, SRL_RUN_TRAIN, "quad1d", &j->kv, (uint64_t)i + 1, t10h_hook,
                                &c, err);
    if (st)
        return st;
    j->D[i] = c.sumD / (double)c.n;
    j->P[i] = c.sumP / (double)c.n;
    return SRL_OK;
}

int srl__chk_adam_bound_term(srl_check_result *out, const srl__chk_row *row,
                             const srl_check_opts *o, srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 30, 100);
    t10h_job j;
    srl__chk_kv_init(&j.kv);
    srl__chk_kv_set(&j.kv, "opt", "adam");
    srl__chk_kv_set(&j.kv, "beta1", "%.17g", T10H_B1);
    srl__chk_kv_set(&j.kv, "beta2", "%.17g", T10H_B2);
    srl__chk_kv_set(&j.kv, "eps", "%.17g", T10H_EPS);
    srl__chk_kv_set(&j.kv, "a", "%.17g", T10H_A);
    srl__chk_kv_set(&j.kv, "xstar", "%.17g", T10H_XS);
    srl__chk_kv_set(&j.kv, "x0", "%.17g", T10H_XS);
    srl__chk_kv_set(&j.kv, "lr", "%.17g", T10H_LR);
    srl__chk_kv_set(&j.kv, "grad-noise", "%.17g", T10H_SIGMA);
    srl__chk_kv_set(&j.kv, "format", "bf16");
    srl__chk_kv_set(&j.kv, "rounding", o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr");
    srl__chk_kv_set(&j.kv, "steps", "%d", T10H_BURN + T10H_WINDOW);
    srl__chk_kv_set(&j.kv, "log-every", "%d", T10H_BURN + T10H_WINDOW);
    j.D = malloc(2 * (size_t)N * sizeof *j.D);
    if (!j.D)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    j.P = j.D + N;
    int st = srl__chk_parallel((size_t)N, t10h_item, &j, err);
    if (st) {
        free(j.D);
        return st;
    }
    double md, vd, mp, vp;
    srl__chk_mean_var(&md, &vd, j.D, (size_t)N);
    srl__chk_mean_var(&mp, &vp, j.P, (size_t)N);
    for (uint64_t s = 0; s < N; s++)
        j.D[s] -= j.P[s];
    double mx, vx;
    srl__chk_mean_var(&mx, &vx, j.D, (size_t)N);
    free(j.D);
    (void)mx;
    const double half = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1)) * sqrt(vx / (double)N);
    /* the bound of item 2 for one coordinate: (L/2) ulp^2/4 at x* */
    const double q = srl_format_ulp(srl__chk_bf16(), T10H_XS), bound = T10H_A / 2 * q * q / 4;
    const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? bound : mp;
    srl__chk_result_begin(out, row->check.id,
                          "mean per step of F(x_t+1) - F(x^_t+1) (Adam beta1 0.9, lr 0.01, bf16 "
                          "sr, noise 0.01, x* 1.5; %d steps after %d, seeds 1-%llu); predicted the "
                          "write's variance (a/2) E(x^ - RD)(RU - x^) %.4g: the first-order term "
                          "vanishes (bound (a/2) ulp^2/4 = %.4g)",
                          T10H_WINDOW, T10H_BURN, (unsigned long long)N, mp, bound);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, md, md - half, md + half, pred);
    return SRL_OK;
}
