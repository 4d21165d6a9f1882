/* src/theory/t14_sr_vs_rn.c: the predictions of theory/T14-sr-vs-rn.md (include/srlab/theory.h):
 * noisy SGD on a/2 (x - x*)^2 with the weight written by RN or SR into a grid of spacing ulp.
 * Measured in spacings, the exact step is s ~ N(m, r^2), r = lr sigma / ulp; RN moves by
 * round(s), SR by s plus a two-point error of variance frac(s)(1 - frac(s)). Each mode is a
 * linear recursion e' = (1 - k lr a) e + noise of variance W, with the gain k and W from the
 * three Gaussian sums below. Comments cite the step they evaluate. */
#include "srlab/theory.h"

#include <math.h>

#include "srlab/format.h"

#define T14_PI 3.14159265358979323846

/* standard normal density and upper tail */
static double phi(double z)
{
    return exp(-0.5 * z * z) / sqrt(2 * T14_PI);
}

static double upper(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

/* cells summed on each side of m: the Gaussian mass beyond 12 sd (plus one cell) is < 1e-32 */
static long cells(double r)
{
    return (long)ceil(12 * r) + 2;
}

/* P(lo < Z < hi), Z standard normal, without cancellation in either tail */
static double between(double lo, double hi)
{
    if (lo >= 0)
        return upper(lo) - upper(hi);
    if (hi <= 0)
        return upper(-hi) - upper(-lo);
    return 1 - upper(-lo) - upper(hi);
}

/* SR's added variance E[frac(s)(1 - frac(s))], s ~ N(m, r^2) (step 3): over each cell
 * [n, n + 1], with d = m - n and s - n = d + r Z, (s - n)(n + 1 - s) =
 * d (1 - d) + (1 - 2d) r Z - r^2 Z^2, integrated by the partial moments of Z */
static double sr_cell(double m, double r)
{
    const long N = cells(r), c = (long)floor(m);
    double v = 0;
    for (long n = c - N; n <= c + N; n++) {
        const double d = m - (double)n, A = -d / r, B = (1 - d) / r;
        const double m0 = between(A, B), m1 = phi(A) - phi(B);
        const double m2 = m0 + A * phi(A) - B * phi(B);
        v += d * (1 - d) * m0 + (1 - 2 * d) * r * m1 - r * r * m2;
    }
    return v;
}

/* RN's step R = round(s), s ~ N(m, r^2) (step 2): its mean, variance, and the gain
 * d E[R] / dm (the density of s at the rounding boundaries k + 1/2) */
static void rn_step(double m, double r, double *mean, double *var, double *gain)
{
    const long N = cells(r), c = (long)floor(m + 0.5);
    double s1 = 0, s2 = 0, g = 0;
    for (long k = c - N; k <= c + N; k++) {
        const double K = (double)k, P = between((K - 0.5 - m) / r, (K + 0.5 - m) / r);
        s1 += K * P;
        s2 += K * K * P;
        g += phi((K + 0.5 - m) / r) / r;
    }
    *mean = s1;
    *var = s2 - s1 * s1;
    *gain = g;
}

double srl_t14_sr_cell_var(double r)
{
    return r > 0 ? sr_cell(0, r) : 0;
}

double srl_t14_rn_step_var(double r)
{
    if (!(r > 0))
        return 0;
    double mean, var, gain;
    rn_step(0, r, &mean, &var, &gain);
    return var;
}

double srl_t14_rn_gain(double r)
{
    if (!(r > 0))
        return 0;
    double mean, var, gain;
    rn_step(0, r, &mean, &var, &gain);
    return gain;
}

void srl_t14_path(double *excess, srl_t14_mode m, double a, double lr, double sigma, double ulp,
                  double e0, uint64_t steps)
{
    /* step 4 with the drift m = -lr a mu / ulp kept whole: the mean mu moves by the exact mean
     * step, the variance contracts with the gain at m and gains the step variance at m */
    const double r = lr * sigma / ulp;
    double mu = e0, V = 0;
    excess[0] = a / 2 * mu * mu;
    for (uint64_t t = 1; t <= steps; t++) {
        const double dm = -lr * a * mu / ulp;
        double step = dm, var = r * r, k = 1;
        if (m == SRL_T14_RN)
            rn_step(dm, r, &step, &var, &k);
        else if (m == SRL_T14_SR)
            var += sr_cell(dm, r);
        const double c = 1 - k * lr * a;
        mu += ulp * step;
        V = c * c * V + ulp * ulp * var;
        excess[t] = a / 2 * (mu * mu + V);
    }
}

/* the gain k and the per-step variance W of mode m (step 4) */
static void gain_var(double *k, double *W, srl_t14_mode m, double lr, double sigma, double ulp)
{
    const double r = lr * sigma / ulp;
    switch (m) {
    case SRL_T14_RN:
        *k = srl_t14_rn_gain(r);
        *W = srl_t14_rn_step_var(r) * ulp * ulp;
        break;
    case SRL_T14_SR:
        *k = 1;
        *W = (r * r + srl_t14_sr_cell_var(r)) * ulp * ulp;
        break;
    default:
        *k = 1;
        *W = lr * lr * sigma * sigma;
        break;
    }
}

double srl_t14_excess(srl_t14_mode m, double a, double lr, double sigma, double ulp, double e0,
                      double steps)
{
    double k, W;
    gain_var(&k, &W, m, lr, sigma, ulp);
    const double kla = k * lr * a;
    /* step 4: e_T has mean c^T e0 and variance W (1 - c^2T) / (1 - c^2), c = 1 - k lr a */
    double c2T = 0, var;
    if (isinf(steps)) {
        var = kla > 0 ? W / (kla * (2 - kla)) : INFINITY;
        if (!(kla > 0))
            c2T = 1;
    } else if (kla > 0) {
        const double l2 = 2 * steps * log1p(-kla);
        c2T = exp(l2);
        var = -expm1(l2) * W / (kla * (2 - kla));
    } else {
        c2T = 1;
        var = steps * W; /* no restoring drift: a random walk (0 when W is 0: frozen) */
    }
    return a / 2 * (c2T * e0 * e0 + var);
}

double srl_t14_rn_move_prob(double a, double lr, double sigma, double ulp, double e)
{
    /* step 5: RN moves x iff |lr g| >= ulp/2 (T05 step 1, inside a binade), g = a e + sigma xi */
    const double t = ulp / (2 * lr * sigma), d = a * e / sigma;
    return upper(t - d) + upper(t + d);
}

double srl_t14_lr_star(double ulp, double sigma)
{
    /* step 6: d/dlr (lr sigma^2/4 + ulp^2/(24 lr)) = 0 */
    return ulp / (sigma * sqrt(6.0));
}

double srl_t14_crossover(double a, double sigma, double ulp, double e0, double steps)
{
    /* step 7: scan lr down from 16 ulp/sigma by 2^(1/8) for the first lr at which SR's excess is
     * below RN's, then bisect between it and the previous point (on a log scale) */
    const double hi0 = 16 * ulp / sigma, step = exp2(0.125);
    double prev = hi0;
    for (double lr = hi0; lr > hi0 * 0x1p-20; prev = lr, lr /= step) {
        if (!(lr * a < 1))
            continue;
        const double sr = srl_t14_excess(SRL_T14_SR, a, lr, sigma, ulp, e0, steps);
        const double rn = srl_t14_excess(SRL_T14_RN, a, lr, sigma, ulp, e0, steps);
        if (!(sr < rn))
            continue;
        if (lr == hi0)
            return lr;
        double lo = lr, hi = prev; /* SR wins at lo, not at hi */
        for (int i = 0; i < 60; i++) {
            const double mid = sqrt(lo * hi);
            if (srl_t14_excess(SRL_T14_SR, a, mid, sigma, ulp, e0, steps) <
                srl_t14_excess(SRL_T14_RN, a, mid, sigma, ulp, e0, steps))
                lo = mid;
            else
                hi = mid;
        }
        return sqrt(lo * hi);
    }
    return NAN;
}

void srl_t14_eval(srl_t14_values *out, double xstar, double a, double lr, double sigma,
                  double x0, double steps, const srl_format *f)
{
    out->ulp = srl_format_ulp(f, xstar);
    out->r = lr * sigma / out->ulp;
    out->rn_gain = srl_t14_rn_gain(out->r);
    out->rn_step_var = srl_t14_rn_step_var(out->r);
    out->sr_cell_var = srl_t14_sr_cell_var(out->r);
    const double e0 = x0 - xstar;
    out->excess_exact = srl_t14_excess(SRL_T14_EXACT, a, lr, sigma, out->ulp, e0, steps);
    out->excess_rn = srl_t14_excess(SRL_T14_RN, a, lr, sigma, out->ulp, e0, steps);
    out->excess_sr = srl_t14_excess(SRL_T14_SR, a, lr, sigma, out->ulp, e0, steps);
    out->stat_exact = srl_t14_excess(SRL_T14_EXACT, a, lr, sigma, out->ulp, 0, INFINITY);
    out->stat_rn = srl_t14_excess(SRL_T14_RN, a, lr, sigma, out->ulp, 0, INFINITY);
    out->stat_sr = srl_t14_excess(SRL_T14_SR, a, lr, sigma, out->ulp, 0, INFINITY);
    out->rn_move_prob = srl_t14_rn_move_prob(a, lr, sigma, out->ulp, e0);
    out->rn_moves_expected = out->rn_move_prob * steps;
    out->lr_star = srl_t14_lr_star(out->ulp, sigma);
    out->excess_sr_at_lr_star =
        srl_t14_excess(SRL_T14_SR, a, out->lr_star, sigma, out->ulp, 0, INFINITY);
    out->crossover_lr = srl_t14_crossover(a, sigma, out->ulp, e0, steps);
}
