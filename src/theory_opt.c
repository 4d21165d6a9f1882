/* src/theory_opt.c: predictions of theory/T10 and theory/T11 (include/srlab/theory_opt.h).
 * The steps cited are those of the theory files. */
#include "srlab/theory_opt.h"

#include <math.h>

#include "srlab/rounding.h"
#include "srlab/theory_sum.h"

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
