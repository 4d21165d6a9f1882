/* src/theory/t08_weight_decay.c: the predictions of theory/T08-weight-decay.md
 * (include/srlab/theory.h): a decoupled weight-decay step x <- x - lr wd x is lost under RN for
 * every x once lr wd <= 2^-(p+1); the exact fraction of a binade where it is lost; SR applies it
 * in mean.
 *
 * Decisions about a real number against a grid midpoint are made exactly with one fused
 * multiply-add on exact binary64 operands: fma(a, b, -c) is the exact a*b - c rounded once, so
 * its sign is the sign of the exact value. */
#include "srlab/theory.h"

#include <math.h>

#include "theory/grid.h"

bool srl_t08_rn_decay_lost(double x, double lr_wd, const srl_format *f)
{
    x = fabs(x);
    if (x == 0 || lr_wd == 0)
        return true;
    /* RN(x - d) = x iff d < h or (d == h and x even), d = lr_wd x, h = half the gap below. */
    const double h = srl__theory_gap_below(x, f) / 2;
    const double r = fma(lr_wd, x, -h); /* sign of d - h, exactly */
    return r < 0 || (r == 0 && srl__theory_is_even(x, f));
}

double srl_t08_threshold(const srl_format *f)
{
    return ldexp(1.0, -(f->p + 1));
}

double srl_t08_lost_fraction(double lr_wd, const srl_format *f)
{
    /* One binade [1, 2) scaled: x = M 2^(1-p), M = 2^(p-1) .. 2^p - 1. The lost set among
     * M > 2^(p-1) is a prefix (the decrement grows with M; a tie loses only at one M), found by
     * bisection with the exact decision. */
    const double ulp1 = ldexp(1.0, 1 - f->p);
    const double Mlo = ldexp(1.0, f->p - 1), Mhi = ldexp(1.0, f->p) - 1;
    double count = srl_t08_rn_decay_lost(1.0, lr_wd, f) ? 1 : 0;
    if (!srl_t08_rn_decay_lost((Mlo + 1) * ulp1, lr_wd, f))
        return count / Mlo;
    double lo = Mlo + 1, hi = Mhi; /* lost at lo; find the last lost M */
    if (srl_t08_rn_decay_lost(hi * ulp1, lr_wd, f)) {
        lo = hi;
    } else {
        while (hi - lo > 1) {
            const double mid = floor((lo + hi) / 2);
            if (srl_t08_rn_decay_lost(mid * ulp1, lr_wd, f))
                lo = mid;
            else
                hi = mid;
        }
    }
    count += lo - Mlo;
    return count / Mlo;
}

double srl_t08_sr_mean(double x0, double lr_wd, uint64_t steps)
{
    /* T08: SR writes are unbiased, so the mean follows the exact decay */
    return x0 * pow(1 - lr_wd, (double)steps);
}

void srl_t08_eval(srl_t08_values *out, double x, double lr, double wd, uint64_t steps,
                  const srl_format *f)
{
    out->lr_wd = lr * wd;
    out->threshold = srl_t08_threshold(f);
    out->below_threshold = out->lr_wd <= out->threshold;
    out->lost_fraction = srl_t08_lost_fraction(out->lr_wd, f);
    out->x = srl_round(x, f, SRL_ROUND_RN, NULL);
    out->lost = srl_t08_rn_decay_lost(out->x, out->lr_wd, f);
    out->sr_mean_x_T = srl_t08_sr_mean(out->x, out->lr_wd, steps);
    out->rn_x_T = out->lost ? out->x : NAN;
}
