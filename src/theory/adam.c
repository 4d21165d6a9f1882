/* src/theory/adam.c: predictions of theory/T10, T11 and T12 (include/srlab/theory.h).
 * The steps cited are those of the theory files. */
#include "srlab/theory.h"

#include <math.h>

#include "srlab/rounding.h"

double srl_t10_adam_relative_penalty(double lr, double ulp, double a, double sigma)
{
    /* T10 step 4: sigma_g^2 / sigma^2 = 1 + a lr' / (2 - a lr'), lr' = lr / sigma; the T06
     * penalty ulp^2 / (6 lr'^2 sigma^2) with lr' = lr / sigma_g is ulp^2 sigma_g^2 /
     * (6 lr^2 sigma^2) */
    const double lp = lr / sigma;
    return ulp * ulp * (1 + a * lp / (2 - a * lp)) / (6 * lr * lr);
}

double srl_t10_rn_freeze_lr(double x, const srl_format *f, double delta)
{
    /* T10 step 5 with T05 step 1: a step s from the grid value x is lost under RN iff |s| is
     * below half the gap on its side; the gap below a power of two (normal range) is half the
     * spacing at it */
    const double q = srl_format_ulp(f, x);
    int e;
    const double m = frexp(fabs(x), &e);
    const double below = (m == 0.5 && fabs(x) > f->xmin) ? q / 2 : q;
    return 0.5 * fmin(q, below) / (1 + delta);
}

/* a = y - RD(y), b = RU(y) - y (both 0 for a value of f) */
static void gaps(double *a, double *b, double y, const srl_format *f)
{
    const double lo = srl_round(y, f, (srl_rounding){SRL_RD, 0}, NULL);
    const double hi = srl_round(y, f, (srl_rounding){SRL_RU, 0}, NULL);
    *a = y - lo;
    *b = hi - y;
}

double srl_t11_quartic_shift(double y, const srl_format *f)
{
    /* T11 step 4: the leading term f'''(y) s^2 / 2 = 3 y s^2 */
    return 3 * y * srl_t01_sr_variance(y, f);
}

double srl_t11_quartic_shift_exact(double y, const srl_format *f)
{
    /* T11 step 4: E[(y + eta)^3] - y^3 = 3 y E[eta^2] + E[eta^3] = 3 y ab + ab(b - a) */
    double a, b;
    gaps(&a, &b, y, f);
    return 3 * y * a * b + a * b * (b - a);
}

double srl_t11_quartic_remainder_bound(double y, const srl_format *f)
{
    double a, b;
    gaps(&a, &b, y, f);
    return a * b * (a + b);
}

/* ---- T12 ---- */

/* p as srl_t12_away_prob defines it, and the spacing q at xe (0 where p is 0 by definition) */
static double away(double xe, const srl_format *f, srl_rounding m, double *q)
{
    *q = 0;
    if (!isfinite(xe))
        return 0;
    const double rd = srl_round(xe, f, (srl_rounding){SRL_RD, 0}, NULL);
    const double ru = srl_round(xe, f, (srl_rounding){SRL_RU, 0}, NULL);
    if (!(ru > rd) || !isfinite(ru - rd))
        return 0;
    *q = ru - rd;
    const double fr = (fabs(xe) - fmin(fabs(rd), fabs(ru))) / *q; /* fraction away from zero */
    switch (m.mode) {
    case SRL_SR: return fr;
    case SRL_SR_EQ: return 0.5;
    case SRL_SR_BITS: return floor(ldexp(fr, m.r)) / ldexp(1.0, m.r); /* T02: F / 2^R */
    default: return 0;
    }
}

double srl_t12_away_prob(double xe, const srl_format *f, srl_rounding m)
{
    double q;
    return away(xe, f, m, &q);
}

double srl_t12_pair_d2(double xe, const srl_format *f, srl_rounding m)
{
    double q;
    const double p = away(xe, f, m, &q);
    /* T12 step 2: the replicas differ with probability p (1 - p) + (1 - p) p, then by q */
    return 2 * (p * (1 - p) * q * q);
}
