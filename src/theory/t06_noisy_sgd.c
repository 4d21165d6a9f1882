/* src/theory/t06_noisy_sgd.c: the predictions of theory/T06-noisy-sgd.md (include/srlab/theory.h):
 * the stationary excess loss of noisy SGD on a quadratic in exact arithmetic, what SR writes add
 * to it, v(r) ulp^2 per step with r = lr sigma / ulp the step's noise in spacings (T14's sum
 * v), and their ratio v(r) / r^2, which is ulp^2 / (6 lr^2 sigma^2) once r >= 1/2. Comments cite
 * the step they evaluate. */
#include "srlab/theory.h"

#include <math.h>

double srl_t06_excess_exact(double lr, double sigma, double a)
{
    /* T06 step 1: Var = lr^2 sigma^2 / (1 - (1 - lr a)^2) = lr sigma^2 / (a (2 - lr a)). */
    return lr * sigma * sigma / (2 * (2 - lr * a));
}

double srl_t06_r(double lr, double sigma, double ulp)
{
    return lr * sigma / ulp;
}

/* v(r) (T14 item 1): beyond r = 4 it is 1/6 to within exp(-2 pi^2 16) (the sum would take 50
 * cells per unit of r) */
static double v_of(double r)
{
    return r > 4 ? 1.0 / 6.0 : srl_t14_sr_cell_var(r);
}

double srl_t06_excess_sr(double lr, double sigma, double ulp, double a)
{
    /* T06 steps 2-3: the SR variance v(r) ulp^2 per step, accumulated as the noise is */
    const double v = v_of(srl_t06_r(lr, sigma, ulp));
    return v * ulp * ulp / (2 * lr * (2 - lr * a));
}

double srl_t06_excess_sr_large_r(double lr, double ulp, double a)
{
    return ulp * ulp / (12 * lr * (2 - lr * a)); /* v = 1/6 */
}

double srl_t06_relative_penalty(double lr, double ulp, double sigma)
{
    /* T06 step 4: v(r) ulp^2 / (lr^2 sigma^2) = v(r) / r^2 */
    const double r = srl_t06_r(lr, sigma, ulp);
    return v_of(r) / (r * r);
}

double srl_t06_relative_penalty_large_r(double lr, double ulp, double sigma)
{
    return ulp * ulp / (6 * lr * lr * sigma * sigma);
}

double srl_t06_penalty_lr(double penalty, double ulp, double sigma)
{
    /* v(r)/r^2 decreases in r: bisection on log r over [1e-6, 1e4], where it runs from about
     * 8e5 down to 1.7e-9 */
    if (!(penalty > 0))
        return NAN;
    double lo = 1e-6, hi = 1e4;
    for (int i = 0; i < 100; i++) {
        const double mid = sqrt(lo * hi);
        if (v_of(mid) / (mid * mid) > penalty)
            lo = mid;
        else
            hi = mid;
    }
    return sqrt(lo * hi) * ulp / sigma;
}

void srl_t06_eval(srl_t06_values *out, double xstar, double a, double lr, double sigma,
                  const srl_format *f)
{
    out->ulp = srl_format_ulp(f, xstar);
    out->r = srl_t06_r(lr, sigma, out->ulp);
    out->excess_exact = srl_t06_excess_exact(lr, sigma, a);
    out->excess_sr = srl_t06_excess_sr(lr, sigma, out->ulp, a);
    out->relative_penalty = srl_t06_relative_penalty(lr, out->ulp, sigma);
    out->penalty_large_r = srl_t06_relative_penalty_large_r(lr, out->ulp, sigma);
    out->lr_for_1pct = srl_t06_penalty_lr(0.01, out->ulp, sigma);
}
