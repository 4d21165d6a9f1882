/* src/theory/descent.c: predictions of theory/T05-T09 and T13 (include/srlab/theory.h).
 *
 * The formulas are derived in the theory/ files named in the header; comments cite the step
 * they evaluate. Where a simple formula approximates a grid effect, an exact grid computation
 * is given beside it (the RN stall point by iterating the rounded map; the weight-decay loss by
 * deciding each significand exactly). Decisions about a real number against a grid midpoint are
 * made exactly with one fused multiply-add on exact binary64 operands: fma(a, b, -c) is the
 * exact a*b - c rounded once, so its sign is the sign of the exact value. */
#include "srlab/theory.h"

#include <math.h>
#include <string.h>

#include "srlab/rounding.h"
#include "srlab/tensor.h"

/* ---- grid helpers ---- */

/* The spacing below a positive value x of f (half the spacing at x when x is a power of two
 * above the subnormal range). */
static double gap_below(double x, const srl_format *f)
{
    const double q = srl_format_ulp(f, x);
    int e;
    const double m = frexp(x, &e);
    return (m == 0.5 && x > f->xmin) ? q / 2 : q;
}

/* Is the value x of f even (last significand bit 0)? */
static bool is_even(double x, const srl_format *f)
{
    const double k = fabs(x) / srl_format_ulp(f, x);
    return fmod(k, 2.0) == 0.0;
}

/* ---- T05 ---- */

void srl_t05_neighbours(double *g0, double *g1, double x, const srl_format *f)
{
    *g0 = srl_round(x, f, (srl_rounding){SRL_RD, 0}, NULL);
    *g1 = srl_round(x, f, (srl_rounding){SRL_RU, 0}, NULL);
}

double srl_t05_freeze_grad(double x, double lr, const srl_format *f)
{
    /* T05 step 1: RN(x - s) = x iff |s| < ulp(x)/2 (ties aside), s = lr g. */
    return srl_format_ulp(f, x) / (2 * lr);
}

double srl_t05_stall_distance(double xstar, double lr, double a, const srl_format *f)
{
    /* T05 step 2: with g = a (x - x*), the step is frozen iff lr a |x - x*| < ulp/2. */
    return srl_format_ulp(f, xstar) / (2 * lr * a);
}

double srl_t05_gd_iterate(double a, double xstar, double x0, double lr, uint64_t t)
{
    return xstar + pow(1 - lr * a, (double)t) * (x0 - xstar);
}

double srl_t05_sr_floor(double a, double xstar, const srl_format *f)
{
    double g0, g1;
    srl_t05_neighbours(&g0, &g1, xstar, f);
    /* T05 step 4: the stationary law on {g0, g1} has mean x*, excess (a/2)(x* - g0)(g1 - x*). */
    return 0.5 * a * (xstar - g0) * (g1 - xstar);
}

int srl_t05_rn_stall(srl_t05_stall *out, double a, double xstar, double x0, double lr,
                     const srl_format *f, const srl_format *grad_fmt, srl_arith arith,
                     uint64_t max_steps)
{
    memset(out, 0, sizeof *out);
    if (!(lr > 0) || !isfinite(lr) || !isfinite(a) || !isfinite(xstar) || !isfinite(x0))
        return SRL_EINVAL;
    if (arith == SRL_ARITH_FP32 && (!srl_format_fits_float(f) || !srl_format_fits_float(grad_fmt)))
        return SRL_EINVAL;
    const srl_rounding rn = SRL_ROUND_RN;
    double x = srl_round(x0, f, rn, NULL);
    const float lr32 = (float)lr;
    uint64_t t = 0;
    for (; t < max_steps; t++) {
        /* the operations of src/problems/convex.c (gradient) and src/train/optim_tpl.h (sgd) */
        const double g = srl_round(a * (x - xstar), grad_fmt, rn, NULL);
        double xe;
        if (arith == SRL_ARITH_FP32) {
            const float s = lr32 * (float)g;
            xe = (double)((float)x - s);
        } else {
            xe = x - lr * g;
        }
        const double xn = srl_round(xe, f, rn, NULL);
        if (!isfinite(xn)) {
            out->x = xn;
            out->step = t + 1;
            out->distance = INFINITY;
            return SRL_OK;
        }
        if (xn == x) {
            out->fixed = true;
            break;
        }
        x = xn;
    }
    out->step = t;
    out->x = x;
    out->distance = fabs(x - xstar);
    return SRL_OK;
}

/* ---- T06 ---- */

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

/* ---- T07 ---- */

double srl_t07_move_prob(double lr, double g, double ulp)
{
    return lr * fabs(g) / ulp;
}

void srl_t07_cover_steps(double *mean, double *sd, double distance, double ulp, double p)
{
    const double K = fabs(distance) / ulp;
    *mean = K / p;
    *sd = sqrt(K * (1 - p)) / p;
}

/* ---- T08 ---- */

bool srl_t08_rn_decay_lost(double x, double lr_wd, const srl_format *f)
{
    x = fabs(x);
    if (x == 0 || lr_wd == 0)
        return true;
    /* RN(x - d) = x iff d < h or (d == h and x even), d = lr_wd x, h = half the gap below. */
    const double h = gap_below(x, f) / 2;
    const double r = fma(lr_wd, x, -h); /* sign of d - h, exactly */
    return r < 0 || (r == 0 && is_even(x, f));
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

/* ---- T09 ---- */

int srl_t09_second_moment(srl_t09 *out, double v, double beta2, const srl_format *f)
{
    memset(out, 0, sizeof *out);
    if (!(v >= f->xmin) || !srl_format_contains(f, v) || !isfinite(v) || !(beta2 >= 0.5) ||
        !(beta2 < 1))
        return SRL_EINVAL;
    /* T09 step 1: with g = 0 the write stores RN(beta2 v); it is below v iff beta2 v < v - h, or
     * equal with v odd (the tie then goes to the even neighbour below). */
    const double h = gap_below(v, f) / 2;
    const double r = fma(beta2, v, -(v - h));
    out->can_decrease = r < 0 || (r == 0 && !is_even(v, f));
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

/* ---- T13 ---- */

srl_bytes srl_t13_bytes(const srl_strategy *s, srl_optim_kind k)
{
    return srl_strategy_bytes(s, srl_optim_has_m(k), srl_optim_has_v(k));
}
