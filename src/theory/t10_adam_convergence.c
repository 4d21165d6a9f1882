/* src/theory/t10_adam_convergence.c: the predictions of theory/T10-adam-convergence.md
 * (include/srlab/theory.h): Adam with SR writes pays a relative penalty that falls like 1/lr^2
 * (measured on a noisy quadratic with beta1 = 0, where Adam is SGD with lr / sigma_g); with RN
 * every step is lost below a computable learning rate. Comments cite the step they evaluate. */
#include "srlab/theory.h"

#include <math.h>

#include "srlab/rounding.h"
#include "theory/grid.h"

double srl_t10_sigma_g2_ratio(double lr, double a, double sigma)
{
    /* T10 step 4: sigma_g^2 / sigma^2 = 1 + a lr' / (2 - a lr'), lr' = lr / sigma */
    const double lp = lr / sigma;
    return 1 + a * lp / (2 - a * lp);
}

double srl_t10_adam_relative_penalty(double lr, double ulp, double a, double sigma)
{
    /* T10 step 4: the T06 penalty ulp^2 / (6 lr'^2 sigma^2) with lr' = lr / sigma_g is
     * ulp^2 sigma_g^2 / (6 lr^2 sigma^2) */
    return ulp * ulp * srl_t10_sigma_g2_ratio(lr, a, sigma) / (6 * lr * lr);
}

double srl_t10_rn_freeze_lr(double x, const srl_format *f, double delta)
{
    /* T10 step 5 with T05 step 1: a step s from the grid value x is lost under RN iff |s| is
     * below half the gap on its side; the gap below a power of two (normal range) is half the
     * spacing at it */
    const double q = srl_format_ulp(f, x);
    return 0.5 * fmin(q, srl__theory_gap_below(fabs(x), f)) / (1 + delta);
}

void srl_t10_eval(srl_t10_values *out, double xstar, double a, double lr, double sigma,
                  double x0, double delta, const srl_format *f)
{
    out->ulp = srl_format_ulp(f, xstar);
    out->lr_eff = lr / sigma;
    out->sigma_g2_ratio = srl_t10_sigma_g2_ratio(lr, a, sigma);
    out->relative_penalty = srl_t10_adam_relative_penalty(lr, out->ulp, a, sigma);
    out->penalty_at_2lr = srl_t10_adam_relative_penalty(2 * lr, out->ulp, a, sigma);
    out->x0 = srl_round(x0, f, SRL_ROUND_RN, NULL);
    out->rn_freeze_lr = srl_t10_rn_freeze_lr(out->x0, f, delta);
    out->rn_frozen = lr < out->rn_freeze_lr;
}
