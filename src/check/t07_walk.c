/* src/check/t07_walk.c: the checks of theory/T07-sr-random-walk.md: at a learning rate whose
 * step lr |g| is one hundredth of a spacing, bf16 sr gradient descent (quad1d, x0 1.5, x* far
 * below so that g is nearly constant; exact sr, binary64 gradient and update) is a random walk.
 *
 *   T07a  the moves of all seeds and steps are Bernoulli(p) trials, p = lr |g| / ulp (item 2):
 *         the Clopper-Pearson interval of p, inverted into one of the steps per move 1/p.
 *   T07b  the steps to cover K spacings are negative binomial (item 3): the total over the
 *         seeds gives an exact interval of p, inverted into one of the mean cover time K/p.
 * Both intervals are widened by the relative change of p over the walk (g is not quite
 * constant). Seeds 1 .. N. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>

#include "srlab/format.h"
#include "srlab/theory.h"

#define T07_XS (-1e6)
#define T07_X0 1.5
#define T07_P 0.01 /* the move probability per step */
#define T07B_K 8   /* spacings to cover */

/* The learning rate that makes the step lr |g(x0)| one hundredth of ulp(x0). */
static double walk_lr(void)
{
    return T07_P * srl_format_ulp(srl__chk_bf16(), T07_X0) / (T07_X0 - T07_XS);
}

/* The prediction's p (srl_t07_move_prob at x0) and *ulp = ulp(x0). */
static double walk_prob(double *ulp)
{
    *ulp = srl_format_ulp(srl__chk_bf16(), T07_X0);
    return srl_t07_move_prob(walk_lr(), T07_X0 - T07_XS, *ulp);
}

/* The relative change of p over the walk: |g| changes by at most (distance walked) / |x0 - x*|
 * with the walk inside [1, 1.5]. */
static double walk_drift(void)
{
    return 0.5 / (T07_X0 - T07_XS);
}

static void walk_kv(srl__chk_kv *kv, const char *rounding, uint64_t steps, uint64_t every)
{
    srl__chk_kv_set(kv, "opt", "sgd");
    srl__chk_kv_set(kv, "format", "bf16");
    srl__chk_kv_set(kv, "rounding", "%s", rounding);
    srl__chk_kv_set(kv, "grad-format", "fp64");
    srl__chk_kv_set(kv, "update-arith", "fp64");
    srl__chk_kv_set(kv, "a", "1");
    srl__chk_kv_set(kv, "xstar", "%.17g", T07_XS);
    srl__chk_kv_set(kv, "x0", "%.17g", T07_X0);
    srl__chk_kv_set(kv, "lr", "%.17g", walk_lr());
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)every);
}

/* The sum of the per-seed values of a job of one value per seed (then freed). */
static double job_sum(srl__chk_job *j, uint64_t N)
{
    double S = 0;
    for (uint64_t s = 0; s < N; s++)
        S += j->out[s];
    free(j->out);
    j->out = NULL;
    return S;
}

/* moves = (x0 - x_T) / ulp, within the binade [1, 2) */
static int moves_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                        double *out, srl_err *err)
{
    (void)j;
    const double ulp = srl_format_ulp(srl__chk_bf16(), T07_X0);
    const double x = srl__chk_last(&rows[0], "x");
    if (!(x >= 1 && x <= T07_X0))
        return srl_err_set(err, SRL_EINVAL,
                           "T07 seed %llu: the walk left [1, 1.5] (x = %g): "
                           "the check's design assumes one binade",
                           (unsigned long long)seed, x);
    out[0] = (T07_X0 - x) / ulp;
    return SRL_OK;
}

int srl__chk_walk_moves(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                        srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 50, 200), T = 2000;
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, moves_reduce, NULL);
    walk_kv(&j.kv[0], o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "rn" : "sr", T, T);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    const double M = job_sum(&j, N);
    /* T07 item 2: the moves of all seeds and steps are Bernoulli(p) trials: Binomial(N T, p) */
    double lo, hi, ulp;
    const uint64_t n = N * T;
    srl_check_clopper_pearson(&lo, &hi, (uint64_t)M, n, SRL_CHECK_ALPHA);
    const double p = walk_prob(&ulp), dr = walk_drift();
    srl__chk_result_begin(
        out, row->check.id,
        "mean steps per move (N T / moves) of bf16 sr GD with a "
        "constant step lr |g| = ulp/100 (exact sr, binary64 update), seeds 1-%llu, "
        "%llu steps each, %.0f moves; predicted ulp/(lr |g|)",
        (unsigned long long)N, (unsigned long long)T, M);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, M > 0 ? (double)n / M : INFINITY, (1 - dr) / hi,
                        lo > 0 ? (1 + dr) / lo : INFINITY, srl_t07_wait_steps(p));
    return SRL_OK;
}

static int cover_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                        double *out, srl_err *err)
{
    (void)j;
    (void)seed;
    (void)err;
    const double ulp = srl_format_ulp(srl__chk_bf16(), T07_X0), target = T07_X0 - T07B_K * ulp;
    out[0] = INFINITY; /* not covered within the run */
    for (size_t i = 0; i < rows[0].n; i++)
        if (srl__chk_col(&rows[0], i, "x") <= target) {
            out[0] = srl__chk_col(&rows[0], i, "step");
            break;
        }
    return SRL_OK;
}

/* T07 item 3: the total S = s of independent cover times is the number of Bernoulli(p) trials
 * until the r-th success, and P(S <= s) = P(Binomial(s, p) >= r): the exact interval [pl, ph]
 * of p at level 1 - alpha, by bisection on the binomial tails. */
static void success_prob_interval(double *pl, double *ph, uint64_t r, uint64_t s)
{
    double plo = 0, phi = 1;
    for (int it = 0; it < 200; it++) { /* P(S <= s; p) = alpha/2, increasing in p */
        const double m = 0.5 * (plo + phi);
        if (srl_check_binom_upper(r, s, m) < SRL_CHECK_ALPHA / 2)
            plo = m;
        else
            phi = m;
    }
    *pl = plo;
    plo = 0, phi = 1;
    for (int it = 0; it < 200; it++) { /* P(S >= s; p) = P(Bin(s-1, p) <= r-1) = alpha/2 */
        const double m = 0.5 * (plo + phi);
        if (srl_check_binom_lower(r - 1, s - 1, m) < SRL_CHECK_ALPHA / 2)
            phi = m;
        else
            plo = m;
    }
    *ph = phi;
}

int srl__chk_walk_cover(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                        srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 50, 200);
    /* the cover time is negative binomial, mean K/p = 800 and sd sqrt(K (1-p))/p = 281: 4000
     * steps leave it uncovered with probability below 10^-9 per seed */
    const uint64_t T = 4000;
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, cover_reduce, NULL);
    walk_kv(&j.kv[0], o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "sr:r=4" : "sr", T, 1);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    const double S = job_sum(&j, N);
    double ulp, cmean, csd;
    const double p = walk_prob(&ulp), dr = walk_drift();
    srl_t07_cover_steps(&cmean, &csd, T07B_K * ulp, ulp, p);
    double lo = INFINITY, hi = INFINITY;
    if (isfinite(S)) { /* the interval of p inverted into one of the mean cover time K/p */
        double pl, ph;
        success_prob_interval(&pl, &ph, N * T07B_K, (uint64_t)S);
        lo = T07B_K / ph * (1 - dr);
        hi = T07B_K / pl * (1 + dr);
    }
    srl__chk_result_begin(out, row->check.id,
                          "mean steps to cover %d spacings of bf16 sr GD with constant "
                          "step lr |g| = ulp/100 (as T07a), seeds 1-%llu (%llu steps each); "
                          "predicted K ulp/(lr |g|) (negative binomial, sd %.0f per seed)",
                          T07B_K, (unsigned long long)N, (unsigned long long)T, csd);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, S / (double)N, lo, hi, cmean);
    return SRL_OK;
}
