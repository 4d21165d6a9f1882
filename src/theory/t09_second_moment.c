/* src/theory/t09_second_moment.c: the predictions of theory/T09-second-moment.md
 * (include/srlab/theory.h): Adam's second moment v stored under RN with beta2 close to 1 cannot
 * decrease, and rises only when g^2 exceeds a computable multiple of v. Decisions against a grid
 * midpoint are exact (one fused multiply-add on exact operands, as in T08). */
#include "srlab/theory.h"

#include <math.h>
#include <string.h>

#include "srlab/rounding.h"
#include "theory/grid.h"

int srl_t09_second_moment(srl_t09 *out, double v, double beta2, const srl_format *f)
{
    memset(out, 0, sizeof *out);
    if (!(v >= f->xmin) || !srl_format_contains(f, v) || !isfinite(v) || !(beta2 >= 0.5) ||
        !(beta2 < 1))
        return SRL_EINVAL;
    /* T09 step 1: with g = 0 the write stores RN(beta2 v); it is below v iff beta2 v < v - h, or
     * equal with v odd (the tie then goes to the even neighbour below). */
    const double h = srl__theory_gap_below(v, f) / 2;
    const double r = fma(beta2, v, -(v - h));
    out->can_decrease = r < 0 || (r == 0 && !srl__theory_is_even(v, f));
    out->v_min_next = srl_round(beta2 * v, f, SRL_ROUND_RN, NULL);
    if (!out->can_decrease && out->v_min_next < v)
        out->v_min_next = v; /* the binary64 product crossed the midpoint; the exact one did not */
    /* T09 step 2: it rises iff (1 - beta2)(g^2 - v) > ulp(v)/2 (or = with v odd). 1 - beta2 is
     * exact (Sterbenz). */
    out->rise_ratio = 1 + srl_format_ulp(f, v) / (2 * (1 - beta2) * v);
    return SRL_OK;
}

double srl_t09_no_decrease_bound(const srl_format *f)
{
    return ldexp(1.0, -(f->p + 1));
}

void srl_t09_rise_range(double *lo, double *hi, double beta2, const srl_format *f)
{
    const double c = 1 - beta2;
    *lo = 1 + 1 / (2 * c * (ldexp(1.0, f->p) - 1));
    *hi = 1 + 1 / (2 * c * ldexp(1.0, f->p - 1));
}

int srl_t09_eval(srl_t09_values *out, double v, double beta2, const srl_format *f)
{
    out->no_decrease_bound = srl_t09_no_decrease_bound(f);
    out->decay = 1 - beta2;
    out->ratchet = out->decay <= out->no_decrease_bound;
    srl_t09_rise_range(&out->rise_ratio_min, &out->rise_ratio_max, beta2, f);
    return srl_t09_second_moment(&out->write, v, beta2, f);
}
