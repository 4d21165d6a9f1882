/* src/theory/t01_sr_basics.c: the predictions of theory/T01-sr-basics.md (include/srlab/theory.h):
 * SR is unbiased, its variance (x - RD)(RU - x) <= ulp^2/4, and the error bounds of RN (u|x|)
 * and SR (2u|x|). Comments cite the item they evaluate. */
#include "srlab/theory.h"

#include <math.h>

#include "theory/grid.h"

void srl_t01_neighbours(double *rd, double *ru, double x, const srl_format *f)
{
    *rd = srl_round(x, f, (srl_rounding){SRL_RD, 0}, NULL);
    *ru = srl_round(x, f, (srl_rounding){SRL_RU, 0}, NULL);
}

double srl_t01_sr_variance(double x, const srl_format *f)
{
    if (!srl__theory_in_range(x, f))
        return NAN;
    double rd, ru;
    srl_t01_neighbours(&rd, &ru, x, f);
    /* T01: SR(x) = ru with probability (x - rd)/(ru - rd), rd otherwise; so E = x and
     * Var = (ru - x)^2 P + (x - rd)^2 (1 - P) = (x - rd)(ru - x). In the normal range both
     * differences are exact (Sterbenz: rd and ru lie within a factor 2 of x); below xmin
     * without subnormals they may round once each. */
    return (x - rd) * (ru - x);
}

double srl_t01_sr_variance_max(double x, const srl_format *f)
{
    if (!srl__theory_in_range(x, f))
        return NAN;
    double rd, ru;
    srl_t01_neighbours(&rd, &ru, x, f);
    if (rd == ru)
        return 0.0;
    const double q = ru - rd; /* a power of two: exact */
    return q * q / 4;
}

double srl_t01_rn_error_bound(double x, const srl_format *f)
{
    if (!isfinite(x))
        return NAN;
    if (fabs(x) >= f->xmin)
        return f->u * fabs(x); /* ulp(x)/2 = 2^(e-p) <= 2^-p |x| */
    return (f->subnormals ? f->xsub : f->xmin) / 2;
}

double srl_t01_sr_error_bound(double x, const srl_format *f)
{
    if (!isfinite(x))
        return NAN;
    if (fabs(x) >= f->xmin)
        return 2 * f->u * fabs(x); /* ulp(x) = 2^(e-p+1) <= 2^(1-p) |x| */
    return f->subnormals ? f->xsub : f->xmin;
}

double srl_t01_sr_error_max(double x, const srl_format *f)
{
    double rd, ru;
    srl_t01_neighbours(&rd, &ru, x, f);
    return fmax(x - rd, ru - x); /* SR returns rd or ru: the error is one of these */
}

void srl_t01_eval(srl_t01_values *out, double x, const srl_format *f)
{
    out->u = f->u;
    srl_t01_neighbours(&out->rd, &out->ru, x, f);
    out->q = out->ru - out->rd;
    out->inexact = out->q > 0;
    /* item 1: exact, x - RD(x) is exact (Sterbenz, or RD = 0) and q is a power of two */
    out->p_up = out->inexact ? (x - out->rd) / out->q : NAN;
    out->sr_mean = out->inexact ? out->rd + out->q * out->p_up : NAN;
    out->sr_variance = srl_t01_sr_variance(x, f);
    out->sr_variance_max = srl_t01_sr_variance_max(x, f);
    out->rn = srl_round(x, f, SRL_ROUND_RN, NULL);
    out->rn_error = fabs(out->rn - x);
    out->rn_error_bound = srl_t01_rn_error_bound(x, f);
    out->sr_error_max = srl_t01_sr_error_max(x, f);
    out->sr_error_bound = srl_t01_sr_error_bound(x, f);
}
