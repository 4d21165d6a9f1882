/* src/check/t14_srrn.c: the checks of theory/T14-sr-vs-rn.md: noisy SGD on a/2 (x - x*)^2
 * (a 1, x* 1.5, gradient noise sigma 1) through the quad1d runner (src/problems/convex.c), bf16
 * weights written with rn or sr (gradient and update in fp32) or fp32 throughout, against
 * srl_t14_excess.
 *
 *   T14a  dithered RN (lr 0.01, r = 1.28): mean loss_gap of rn minus fp32, paired on the seed's
 *         noise, = the stationary RN excess over exact (~ ulp^2/(48 lr)).
 *   T14b  RN near its freeze (lr 0.002, r = 0.26): the mean loss_gap = the stationary RN excess
 *         with RN's gain and step variance (neither exact nor dithered).
 *   T14c  RN frozen (lr 5e-4 from x0 1.25): no seed's weight ever moves.
 *   T14d  SR below lr* (lr 0.001, r = 0.13): the mean loss_gap is SR's plateau (~ ulp sigma /
 *         (2 sqrt(2 pi))), not the large-r formula lr sigma^2/4 + ulp^2/(24 lr).
 *   T14e  the crossover: over 10^4 steps from x0 1.25, the late mean of rn minus sr, paired on
 *         the seed, at lr_c / sqrt 2 (SR wins) and lr_c sqrt 2 (RN wins), lr_c =
 *         srl_t14_crossover; the worst of the two.
 * Each statistical row compares the mean over seeds 1 .. N of a per-seed value with the
 * prediction by a Student t interval at level 1 - SRL_CHECK_ALPHA, and states its minimum
 * detectable effect (t + z_0.99) SE: a deviation that large fails with probability >= 0.99. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/theory.h"

#define T14_A 1.0
#define T14_XS 1.5
#define T14_SIGMA 1.0
#define T14_X0 1.25
#define T14_EVERY 10

/* A run: how the weight is written ("rn", "sr": bf16 with that rounding; "fp32") */
typedef struct t14_setup {
    double lr, x0, burn; /* loss_gap averaged over the logged steps > burn */
    uint64_t steps;
} t14_setup;

static void t14_kv(srl__chk_kv *kv, const char *mode, const t14_setup *s)
{
    srl__chk_kv_set(kv, "opt", "sgd");
    if (!strcmp(mode, "fp32")) {
        srl__chk_kv_set(kv, "strategy", "fp32");
    } else {
        srl__chk_kv_set(kv, "format", "bf16");
        srl__chk_kv_set(kv, "rounding", "%s", mode);
    }
    srl__chk_kv_set(kv, "a", "%.17g", T14_A);
    srl__chk_kv_set(kv, "xstar", "%.17g", T14_XS);
    srl__chk_kv_set(kv, "x0", "%.17g", s->x0);
    srl__chk_kv_set(kv, "lr", "%.17g", s->lr);
    srl__chk_kv_set(kv, "grad-noise", "%.17g", T14_SIGMA);
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)s->steps);
    srl__chk_kv_set(kv, "log-every", "%d", T14_EVERY);
}

/* per seed: late mean of loss_gap of run 0, minus run 1's when there are two */
static int t14_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                      double *out, srl_err *err)
{
    (void)seed;
    (void)err;
    const t14_setup *s = j->ctx;
    out[0] = srl__chk_late_mean(&rows[0], "loss_gap", s->burn);
    if (j->nkv == 2)
        out[0] -= srl__chk_late_mean(&rows[1], "loss_gap", s->burn);
    return SRL_OK;
}

/* The mean over seeds 1 .. N of the per-seed value of mode0 (minus mode1 when not NULL), and
 * its standard error. */
static int t14_mean(double *mean, double *se, const char *mode0, const char *mode1,
                    const t14_setup *s, uint64_t N, srl_err *err)
{
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", mode1 ? 2 : 1, 1, t14_reduce, s);
    t14_kv(&j.kv[0], mode0, s);
    if (mode1)
        t14_kv(&j.kv[1], mode1, s);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    double v;
    srl__chk_mean_var(mean, &v, j.out, (size_t)N);
    free(j.out);
    *se = sqrt(v / (double)N);
    return SRL_OK;
}

static double t14_ulp(void)
{
    return srl_format_ulp(srl__chk_bf16(), T14_XS);
}

/* The model's mean loss_gap of mode m averaged over the logged steps > burn, as measured
 * (srl_t14_path; NaN when out of memory). */
static double t14_pred(srl_t14_mode m, const t14_setup *s)
{
    double *ex = malloc((s->steps + 1) * sizeof *ex);
    if (!ex)
        return NAN;
    srl_t14_path(ex, m, T14_A, s->lr, T14_SIGMA, t14_ulp(), s->x0 - T14_XS, s->steps);
    double sum = 0;
    size_t n = 0;
    for (uint64_t t = T14_EVERY; t <= s->steps; t += T14_EVERY)
        if ((double)t > s->burn) {
            sum += ex[t];
            n++;
        }
    free(ex);
    return sum / (double)n;
}

/* Start the result of row id and judge mean against pred with the t interval of N seeds (the
 * caller appends what); *mde: the minimum detectable effect (t + z_0.99) se. */
static void t14_judge(srl_check_result *out, const char *id, double mean, double se, double pred,
                      uint64_t N, double *mde)
{
    srl__chk_result_begin(out, id, "%s", "");
    const double t = srl__chk_t(SRL_CHECK_ALPHA, (double)(N - 1));
    *mde = (t + srl__chk_z(0.02)) * se;
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - t * se, mean + t * se, pred);
}

int srl__chk_t14_dither(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                        srl_err *err)
{
    /* stationary start at x*, burn-in 10/(lr a), 20000 steps averaged */
    const t14_setup s = {0.01, T14_XS, 1000, 21000};
    const uint64_t N = srl__chk_seeds(o, 200, 1000);
    double mean, se, mde;
    int st = t14_mean(&mean, &se, o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr" : "rn", "fp32",
                      &s, N, err);
    if (st)
        return st;
    const srl_t14_mode m = o->mutation == SRL_CHECK_MUT_PREDICTION ? SRL_T14_SR : SRL_T14_RN;
    const double pred = t14_pred(m, &s) - t14_pred(SRL_T14_EXACT, &s);
    t14_judge(out, row->check.id, mean, se, pred, N, &mde);
    srl__chk_result_what(out,
                         "mean loss_gap bf16-%s minus fp32 (paired) of SGD on (x - 1.5)^2/2 + "
                         "noise sd 1, lr 0.01, steps 1000-21000, seeds 1-%llu; predicted RN's "
                         "dithered excess%s; detects %.2g (%.0f%% of it)",
                         o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr (mutation)" : "rn",
                         (unsigned long long)N,
                         m == SRL_T14_SR ? " with SR's ulp^2/6 (mutation)" : "", mde,
                         100 * mde / fabs(pred));
    return SRL_OK;
}

/* T14b and T14d: one mode alone at a stationary start, against mode m's stationary model */
static int t14_alone(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                     const char *mode, const char *mutant, double lr, double relax, srl_err *err)
{
    /* burn-in 5 relaxation times (the variance within e^-10 of stationary), 20000 averaged */
    const double burn = ceil(5 * relax / T14_EVERY) * T14_EVERY;
    const t14_setup s = {lr, T14_XS, burn, (uint64_t)burn + 20000};
    const uint64_t N = srl__chk_seeds(o, 150, 800);
    double mean, se, mde;
    int st = t14_mean(&mean, &se, o->mutation == SRL_CHECK_MUT_EXPERIMENT ? mutant : mode, NULL,
                      &s, N, err);
    if (st)
        return st;
    const srl_t14_mode m = !strcmp(mode, "rn") ? SRL_T14_RN : SRL_T14_SR;
    const double ulp = t14_ulp(), r = lr * T14_SIGMA / ulp;
    double pred = t14_pred(m, &s);
    if (o->mutation == SRL_CHECK_MUT_PREDICTION) /* the large-r limit: gain 1, 1/12 or 1/6 */
        pred = srl_t06_excess_exact(lr, T14_SIGMA, T14_A) +
               (m == SRL_T14_RN ? 0.5 : 1) * srl_t06_excess_sr_large_r(lr, ulp, T14_A);
    t14_judge(out, row->check.id, mean, se, pred, N, &mde);
    srl__chk_result_what(out,
                         "mean loss_gap of bf16-%s SGD on (x - 1.5)^2/2 + noise sd 1, lr %g "
                         "(r = %.2f), steps %.0f-%llu, seeds 1-%llu; predicted the %s model%s; "
                         "detects %.2g (%.0f%% of it)",
                         o->mutation == SRL_CHECK_MUT_EXPERIMENT ? mutant : mode, lr, r, burn,
                         (unsigned long long)s.steps, (unsigned long long)N, mode,
                         o->mutation == SRL_CHECK_MUT_PREDICTION ? "'s large-r limit (mutation)"
                                                                  : "",
                         mde, 100 * mde / pred);
    return SRL_OK;
}

int srl__chk_t14_rn_edge(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    const double lr = 0.002, r = lr * T14_SIGMA / t14_ulp();
    return t14_alone(out, row, o, "rn", "sr", lr, 1 / (srl_t14_rn_gain(r) * lr * T14_A), err);
}

int srl__chk_t14_sr_plateau(srl_check_result *out, const srl__chk_row *row,
                            const srl_check_opts *o, srl_err *err)
{
    const double lr = 0.001;
    return t14_alone(out, row, o, "sr", "rn", lr, 1 / (lr * T14_A), err);
}

/* per seed: 1 if the weight ever left x0 at a logged step */
static int frozen_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                         double *out, srl_err *err)
{
    (void)j;
    (void)seed;
    (void)err;
    out[0] = 0;
    for (size_t i = 0; i < rows[0].n; i++)
        if (srl__chk_col(&rows[0], i, "x") != T14_X0)
            out[0] = 1;
    return SRL_OK;
}

int srl__chk_t14_rn_frozen(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    const t14_setup s = {5e-4, T14_X0, 0, 10000};
    const uint64_t N = srl__chk_seeds(o, 40, 200);
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, frozen_reduce, &s);
    t14_kv(&j.kv[0], o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr" : "rn", &s);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    double moved = 0;
    for (uint64_t i = 0; i < N; i++)
        moved += j.out[i];
    free(j.out);
    const double p = srl_t14_rn_move_prob(T14_A, s.lr, T14_SIGMA, t14_ulp(), T14_X0 - T14_XS);
    srl__chk_result_begin(out, row->check.id,
                          "seeds (of 1-%llu) whose bf16-%s weight left x0 = 1.25 in %llu steps "
                          "of SGD on (x - 1.5)^2/2 + noise sd 1, lr 5e-4 (r = 0.064); predicted "
                          "0 (P(move) = %.1g per step); any move fails",
                          (unsigned long long)N,
                          o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr (mutation)" : "rn",
                          (unsigned long long)s.steps, p);
    srl__chk_result_set(out, SRL_CHECK_EXACT, moved, moved, moved, 0.0);
    return SRL_OK;
}

int srl__chk_t14_crossover(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    const uint64_t steps = 10000, N = srl__chk_seeds(o, 150, 800);
    const double lrc = srl_t14_crossover(T14_A, T14_SIGMA, t14_ulp(), T14_X0 - T14_XS,
                                         (double)steps);
    bool have = false;
    for (int side = 0; side < 2; side++) {
        const t14_setup s = {lrc * (side ? sqrt(2.0) : sqrt(0.5)), T14_X0, 8000, steps};
        double mean, se, mde;
        /* the mutation: rn on both sides (the difference is 0) */
        int st = t14_mean(&mean, &se, "rn",
                          o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr", &s, N, err);
        if (st)
            return st;
        double pred = t14_pred(SRL_T14_RN, &s) - t14_pred(SRL_T14_SR, &s);
        if (o->mutation == SRL_CHECK_MUT_PREDICTION) /* RN stationary from the start */
            pred = srl_t14_excess(SRL_T14_RN, T14_A, s.lr, T14_SIGMA, t14_ulp(), 0, INFINITY) -
                   t14_pred(SRL_T14_SR, &s);
        srl_check_result c;
        t14_judge(&c, row->check.id, mean, se, pred, N, &mde);
        srl__chk_result_what(&c,
                             "mean loss_gap bf16-rn minus bf16-%s (paired), steps 8000-10000 "
                             "from x0 1.25, (x - 1.5)^2/2 + noise sd 1, lr %.3g = lr_c %s "
                             "(lr_c %.3g), seeds 1-%llu; predicted %s0%s; detects %.2g",
                             o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn (mutation)" : "sr",
                             s.lr, side ? "x sqrt 2" : "/ sqrt 2", lrc, (unsigned long long)N,
                             side ? "< " : "> ",
                             o->mutation == SRL_CHECK_MUT_PREDICTION
                                 ? " (RN taken as stationary: mutation)"
                                 : "",
                             mde);
        srl__chk_keep_worst(out, &c, &have);
    }
    return SRL_OK;
}
