/* src/theory/t06_noisy_sgd.c: the predictions of theory/T06-noisy-sgd.md (include/srlab/theory.h):
 * the stationary excess loss of noisy SGD on a quadratic in exact arithmetic, what SR writes add
 * to it, and their ratio ulp^2 / (6 lr^2 sigma^2). Comments cite the step they evaluate. */
#include "srlab/theory.h"

#include <math.h>

double srl_t06_excess_exact(double lr, double sigma, double a)
{
    /* T06 step 1: Var = lr^2 sigma^2 / (1 - (1 - lr a)^2) = lr sigma^2 / (a (2 - lr a)). */
    return lr * sigma * sigma / (2 * (2 - lr * a));
}

double srl_t06_excess_sr(double lr, double ulp, double a)
{
    /* T06 step 2: the SR variance ulp^2/6 per step, accumulated the same way. */
    return ulp * ulp / (12 * lr * (2 - lr * a));
}

double srl_t06_relative_penalty(double lr, double ulp, double sigma)
{
    return ulp * ulp / (6 * lr * lr * sigma * sigma);
}

double srl_t06_spread(double lr, double sigma, double a)
{
    return sqrt(lr * sigma * sigma / (a * (2 - lr * a))); /* step 1's variance */
}

double srl_t06_penalty_lr(double penalty, double ulp, double sigma)
{
    return ulp / (sigma * sqrt(6 * penalty)); /* srl_t06_relative_penalty solved for lr */
}

void srl_t06_eval(srl_t06_values *out, double xstar, double a, double lr, double sigma,
                  const srl_format *f)
{
    out->ulp = srl_format_ulp(f, xstar);
    out->excess_exact = srl_t06_excess_exact(lr, sigma, a);
    out->excess_sr = srl_t06_excess_sr(lr, out->ulp, a);
    out->relative_penalty = srl_t06_relative_penalty(lr, out->ulp, sigma);
    out->spread = srl_t06_spread(lr, sigma, a);
    out->spread_ulps = out->spread / out->ulp;
    out->lr_for_1pct = srl_t06_penalty_lr(0.01, out->ulp, sigma);
}
