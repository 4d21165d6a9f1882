/* src/theory/t02_sr_bits_bias.c: the predictions of theory/T02-sr-bits-bias.md
 * (include/srlab/theory.h): the bias of SR with R random bits (sr:r=R), toward zero, in closed
 * form, its supremum and mean, and the variance of the two-point law it draws from. */
#include "srlab/theory.h"

#include <math.h>

#include "theory/grid.h"

/* |x| = T + f q with T the truncation of |x| to the grid and q the spacing there; false when x
 * is outside the format's finite range. */
static bool split(double x, const srl_format *f, double *T, double *q, double *frac)
{
    if (!srl__theory_in_range(x, f))
        return false;
    const double ax = fabs(x);
    *T = srl_round(ax, f, (srl_rounding){SRL_RZ, 0}, NULL);
    *q = srl_format_ulp(f, ax);
    *frac = (ax - *T) / *q; /* exact: the difference by Sterbenz (or T = 0), then a power of 2 */
    return true;
}

double srl_t02_sr_bits_bias(double x, const srl_format *f, int R)
{
    double T, q, fr;
    if (R < 1 || R > 64 || !split(x, f, &T, &q, &fr))
        return NAN;
    if (fr == 0)
        return 0.0;
    /* T02: P(away) = F / 2^R with F = floor(f 2^R), so E|SR_R(x)| = T + q F 2^-R and
     * E|SR_R(x)| - |x| = -q (f - F 2^-R); the sign of x carries over (the mode is symmetric). */
    const double F = floor(ldexp(fr, R));
    const double mag = q * (fr - ldexp(F, -R));
    return x > 0 ? -mag : mag;
}

double srl_t02_sr_bits_bias_max(double x, const srl_format *f, int R)
{
    double T, q, fr;
    if (R < 1 || R > 64 || !split(x, f, &T, &q, &fr))
        return NAN;
    return ldexp(q, -R);
}

double srl_t02_sr_bits_bias_mean(double x, const srl_format *f, int R)
{
    double T, q, fr;
    if (R < 1 || R > 64 || !split(x, f, &T, &q, &fr))
        return NAN;
    return ldexp(q, -R - 1); /* the mean of the sawtooth f - floor(f 2^R) 2^-R over (0, 1) */
}

double srl_t02_sr_bits_variance(double x, const srl_format *f, int R)
{
    const double q = srl_format_ulp(f, fabs(x));
    const double P = srl_t12_away_prob(x, f, (srl_rounding){SRL_SR_BITS, R});
    return q * q * P * (1 - P); /* the two-point law on {T, T + q} */
}

void srl_t02_eval(srl_t02_values *out, double x, const srl_format *f, int R)
{
    const srl_rounding bits = {SRL_SR_BITS, R};
    out->q = srl_format_ulp(f, fabs(x));
    /* the probabilities of rounding away from zero, exact sr and sr:r=R (T12's p) */
    out->frac = srl_t12_away_prob(x, f, SRL_ROUND_SR);
    out->p_away = srl_t12_away_prob(x, f, bits);
    out->bias = srl_t02_sr_bits_bias(x, f, R);
    out->bias_ulps = out->bias / out->q;
    out->bias_max = srl_t02_sr_bits_bias_max(x, f, R);
    out->bias_mean = srl_t02_sr_bits_bias_mean(x, f, R);
    out->variance = srl_t02_sr_bits_variance(x, f, R);
}
